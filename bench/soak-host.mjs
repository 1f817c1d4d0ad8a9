// The host half of the soak benchmark: a real host (built dist, real sandboxed sidecar) in a
// process of its own, so its RSS and fds are the host's alone and not the load generator's.
// argv: userData, workspace, and optionally a directory for heap snapshots, in which case both
// Node processes write one on SIGUSR2 (the sidecar through its Node options; used only here).
// Driven over IPC: `credentials` answers with the daemon's port, origin and current password;
// `stop` stops the host and exits.
import { SIDECAR_NODE_OPTIONS, startBastionHost } from '../packages/host/dist/index.js';

const [userData, workspace, heapDir] = process.argv.slice(2);
if (heapDir) {
  // The sidecar writes under userData, the one directory its sandbox lets it write outside the workspace.
  SIDECAR_NODE_OPTIONS.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`);
}
const host = await startBastionHost({ userData, workspaces: [workspace], stderr: 'none' });

process.on('message', (message) => {
  if (message === 'credentials') {
    const sidecar = host.supervisor.current;
    process.send({
      port: host.socketHost.port,
      uiOrigin: host.uiOrigin,
      password: sidecar?.password ?? '',
      sidecarPid: sidecar?.pid ?? 0,
    });
  } else if (message === 'stop') {
    void host.stop().then(() => process.exit(0));
  }
});
process.send('ready');
