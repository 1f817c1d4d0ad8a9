import type { HostLink } from '../host-link.js';

/**
 * What protects this session, from the host's own report (the sidecar never decides it), while
 * Bastion answers: once it does not, there is no sandbox here to speak of.
 */
export function PostureBanner({ link }: { link: HostLink }) {
  if (link.state === 'connecting') return <div className="posture posture-unknown">Connecting…</div>;
  if (link.state === 'lost') {
    return (
      <div className="posture posture-lost" role="status" aria-label="Security posture">
        Not connected
      </div>
    );
  }
  const { sandbox, shell, reason, platform } = link.handshake.capabilities;
  const sandboxed = sandbox !== 'none';
  const summary = [
    sandboxed ? `Sandboxed (${sandbox})` : 'Not sandboxed',
    shell ? 'Shell available' : 'Shell withheld',
    ...(reason && (!sandboxed || !shell) ? [reason] : []),
    platform,
  ].join(' · ');
  // What is as it should be (the sandbox's name, an available shell) is a detail a narrow window
  // leaves out; a missing sandbox or a withheld shell is always shown.
  return (
    <div
      className={sandboxed ? 'posture posture-ok' : 'posture posture-warn'}
      role="status"
      aria-label="Security posture"
      title={summary}
    >
      <span>{sandboxed ? 'Sandboxed' : 'Not sandboxed'}</span>
      {sandboxed && <span className="posture-detail"> ({sandbox})</span>}
      <span aria-hidden="true" className={shell ? 'posture-detail' : undefined}>
        {' · '}
      </span>
      <span className={shell ? 'posture-detail' : undefined}>{shell ? 'Shell available' : 'Shell withheld'}</span>
      {(!sandboxed || !shell) && reason && <span className="posture-reason"> — {reason}</span>}
      <span className="posture-platform"> ({platform})</span>
    </div>
  );
}
