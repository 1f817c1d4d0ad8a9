/**
 * How the host's (and its agent process's) warnings and errors reach a person at the terminal:
 * one sentence each, saying what happened and what to do, in place of the record's event name and
 * fields (`command.refused (command_id=… code=…)`), which stay in `<home>/logs/host.log`. An event
 * without a sentence here still reads as one, naming the event and the log that holds its record.
 * Every line is made inert (terminalLine): a field may hold text from the sandboxed side.
 */
import { terminalLine } from '@bastion/host';
import type { LogFields, LogRecord, LogSink } from '@bastion/protocol';

type Sentence = (fields: LogFields, home: string) => string;

/** `3 files`, `1 file`. */
const count = (value: LogFields[keyof LogFields], noun: string) =>
  `${String(value ?? 'some')} ${noun}${value === 1 ? '' : 's'}`;

/** ` (CODE)` when the record has a code. */
const code = (fields: LogFields) => (fields.code == null ? '' : ` (${String(fields.code)})`);

const AGENT_RESTARTS = 'the agent process is restarted';

const SENTENCES: Readonly<Record<string, Sentence>> = {
  'userdata.mode-repaired': (f) =>
    `${f.entry === '.' || f.entry == null ? 'the data folder' : `${String(f.entry)} in the data folder`} could be read by other users (${String(f.reason ?? 'loose permissions')}); Bastion made it private again, nothing to do`,
  'host.temp-removed': (f) =>
    `removed ${count(f.count, 'temporary item')} left by a Bastion that did not stop cleanly; nothing to do`,
  'workspace.temp-files-removed': (f) =>
    `removed ${count(f.count, 'half-written temporary file')} a Bastion that did not stop cleanly left in the workspace; nothing to do`,
  'workspace.quarantined': (f, home) =>
    `${f.reason === 'crashed-host' ? 'a Bastion that did not stop cleanly left' : 'a command created'} ${count(f.count, 'file')} that could run code outside the sandbox later (a hook, rc or editor config, .envrc, AGENTS.md): moved to ${home}/host/quarantine/; if you made one yourself meanwhile, move it back`,
  'workspace.quarantine-failed': () =>
    'a file a command created where the sandbox protects the workspace (a hook, rc or editor config, .envrc, AGENTS.md) could not be moved away: look at the workspace before running git or opening it in an editor',
  'sandbox.journal-skipped': (f, home) =>
    `${home}/${String(f.entry)}, the record of what an earlier Bastion's sandbox made, could not be read (${String(f.reason)}): empty placeholder files it made may be left in its workspace`,
  'sandbox.journal-not-removed': (f, home) =>
    `${home}/${String(f.entry)} could not be removed; it is read again at the next start`,
  'host.sandbox-unavailable': (f) =>
    `no outer sandbox here (${String(f.reason ?? 'unavailable')}): ${f.shell === true ? "the agent's commands run unsandboxed (--unsandboxed-shell)" : "the agent's shell is withheld"}; bastion doctor says what to install`,
  'command.refused': (f) => `the host refused a command the agent asked to run${code(f)}`,
  'command.sandbox-failed': (f) =>
    `a command could not be put in its sandbox (${String(f.reason)}), so it was refused; bastion doctor checks the sandbox`,
  'command.prestart-failed': (f) =>
    `a sandbox made ahead for the next command could not start (${String(f.reason)}); each command starts its own instead`,
  'command.git-scan-incomplete': () =>
    'the workspace holds too many entries to find every git repository in it to protect, so a command ran with the workspace read-only',
  'command.nested-protected-over-bound': () =>
    'the workspace holds too many AGENTS.md, CLAUDE.md, .envrc, .vscode, .idea, .mcp.json or .claude entries to protect one by one, so a command ran with the workspace read-only',
  'command.git-neutralised': (f) =>
    `a command made a git repository with ${count(f.count, 'setting')} that would run code (hooks, config): made inert; the command's result names them`,
  'command.git-check-failed': (f) =>
    `Bastion could not finish checking the git repositories a command may have created (${String(f.reason)}): before running git in a new repository here, look at its .git/config and .git/hooks`,
  'workspace.write-refused': (f) =>
    `the host refused a file write the agent asked for${code(f)}${f.rule_id == null ? '' : ` by policy rule ${String(f.rule_id)}`}`,
  'workspace.write-failed': (f) => `a file write the agent asked for failed (${String(f.reason)})`,
  'ask.unrecorded': (f) =>
    `your answer about ${String(f.tool)} could not be added to the policy audit log, so the call was refused; check that the data folder is writable`,
  'egress.blocked': (f) =>
    `a request to the model was stopped because it held what looks like a secret (${String(f.kind)}); nothing was sent`,
  'transport.refused': (f) =>
    `the host refused an outgoing request${code(f)}: only the providers and endpoints you allowed are reachable`,
  'transport.failed': (f) => `an outgoing request failed${code(f)}; check the network and any HTTPS_PROXY`,
  'grant.ack-timeout': () => `the agent process did not confirm a network change in time; ${AGENT_RESTARTS}`,
  'sidecar.restart-failed': (f) => `restarting the agent process failed (${String(f.reason)})`,
  'sidecar.ready-timeout': () => `the agent process did not get ready in time; ${AGENT_RESTARTS}`,
  'sidecar.ipc-violation': () => `the agent process sent the host a message it may not send; ${AGENT_RESTARTS}`,
  'sidecar.channel-failed': (f) => `the channel to the agent process broke${code(f)}; ${AGENT_RESTARTS}`,
  'sidecar.restart-scheduled': (f) =>
    `the agent process stopped; it is started again in ${Number(f.delay_ms ?? 0) / 1000} s (attempt ${String(f.attempt)})`,
  'sidecar.spawn-failed': (f) => `the agent process could not be started${code(f)}; Bastion tries again`,
  'sidecar.respawn-gave-up': (f) =>
    `the agent process could not be started after ${count(f.attempt, 'attempt')}; stop Bastion (Ctrl-C) and run bastion doctor`,
  'sidecar.unstructured-stderr': (f) =>
    `the agent process wrote ${count(f.count, 'line')} that ${f.count === 1 ? 'is' : 'are'} not log records; dropped`,
  'sidecar.start-failed': (f) => `the agent process failed to start${code(f)}`,
  'channel.closed': (f) => `the agent process lost its channel to the host${code(f)} and stopped`,
  'ipc.violation': () => 'the agent process was sent a message it does not take, and stopped',
  'socket.refused': (f) =>
    f.reason === 'peer-not-loopback'
      ? 'a connection to the agent from another machine was refused'
      : `a connection to the agent was refused: ${count(f.count, 'connection')} already waiting`,
  'ui.failed': (f) => `the UI server failed to answer a request${code(f)}; reload the page`,
  'ui.launch-refused': () =>
    "a UI link was refused (already used, older than 60 s, or not this Bastion's); bastion open prints a fresh one",
  'ui.assets-missing': (f) => `the UI's files are missing${code(f)}; build them with npm run build`,
  'ipc.failed': (f) => `the UI's ${String(f.channel)} request failed${code(f)}`,
  'ipc.refused': (f) =>
    `a page's request to the host${f.channel == null ? '' : ` (${String(f.channel)})`} was refused${code(f)}`,
  'control.unavailable': (f, home) =>
    `${home} is too long a path for its control socket (${String(f.bytes)} bytes), so bastion open, secrets and mcp cannot reach this Bastion; use a shorter --home`,
  'control.mcp-restart-failed': (f) =>
    `restarting MCP server ${String(f.server)} failed${code(f)}; bastion mcp list says why`,
  'consent.page-failed': (f) =>
    `the confirmation page could not be opened${code(f)}, so what it would have asked is refused`,
  'consent.page-refused': () => "an answer that did not come from Bastion's confirmation page was refused",
  'mcp.config-unusable': (f, home) =>
    `${home}/host/mcp.json cannot be used${code(f)}, so no MCP server starts; bastion doctor says why`,
  'mcp.failed': (f) =>
    f.reason === 'stopped'
      ? `MCP server ${String(f.server)} stopped; bastion mcp restart ${String(f.server)} starts it again`
      : `MCP server ${String(f.server)} could not start; bastion mcp list says why`,
  'mcp.relist-failed': (f) =>
    `MCP server ${String(f.server)} changed its tools, and listing them again failed; the agent keeps the earlier list`,
  'chatgpt.callback-port-busy': (f) =>
    `the ChatGPT sign-in's callback port ${String(f.port)} is taken by another program; trying the next`,
  'chatgpt.callback-refused': (f) => `a request to the ChatGPT sign-in's callback was refused${code(f)}`,
  'chatgpt.callback-no-ipv6': (f) =>
    `the ChatGPT sign-in's callback listens on 127.0.0.1 only (port ${String(f.port)}): IPv6 loopback is unavailable`,
  'chatgpt.config-override': (f) =>
    `the ChatGPT sign-in uses an overridden ${String(f.reason)}${f.origin == null ? '' : ` (${String(f.origin)})`}`,
  'chatgpt.authorization-url-refused': () =>
    "the ChatGPT sign-in's address was not OpenAI's, so sign-in stopped; try again",
  'chatgpt.complete-failed': (f) => `the ChatGPT sign-in did not complete${code(f)}; sign in again`,
  'chatgpt.connect-failed': (f) => `the ChatGPT sign-in could not start${code(f)}; try again`,
  'chatgpt.route-failed': (f) => `the ChatGPT sign-in failed inside Bastion${code(f)}; try again`,
  'chatgpt.exchange-failed': () => 'ChatGPT did not accept the sign-in; sign in again',
  'chatgpt.refresh-refused': () => 'ChatGPT no longer accepts this sign-in; sign in again in the UI',
  'chatgpt.refresh-failed': () => 'renewing the ChatGPT sign-in failed; check the network, or sign in again',
  'runs.interrupted': (f) =>
    `${count(f.count, 'run')} cut off when Bastion last stopped ${f.count === 1 ? 'is' : 'are'} marked interrupted`,
  'runs.interrupt-deferred': (f) =>
    `runs cut off when Bastion last stopped could not be marked interrupted${code(f)}; tried again at the next start`,
  'sessions.untouched-sweep-failed': (f) =>
    `removing the empty sessions New session left unused failed${code(f)}; tried again in a while`,
  'store.unusable': (f, home) => `${home}/sessions.db cannot be used${code(f)}`,
  'store.write-failed': (f) =>
    `the sessions database could not be written${code(f)}, so ${count(f.count, 'run')} stopped; free disk space or check the data folder`,
  'undo.seal-failed': (f) =>
    `the undo record of run ${String(f.run_id)} could not be saved${code(f)}: bastion undo may not take it back`,
  'run.finish-failed': (f) => `the end of run ${String(f.run_id)} could not be saved${code(f)}`,
  'model.warnings': (f) =>
    `${String(f.provider)}/${String(f.model)} ignored ${count(f.count, 'setting')} of the request it does not take`,
  'secrets.store-failed': (f) => `auth.json could not be written${code(f)}`,
  'endpoints.load-failed': (f) =>
    `the custom endpoints could not be read${code(f)}, so none is on offer; bastion doctor checks the data folder`,
  'endpoints.key-unreadable': (f) => `the key of endpoint ${String(f.provider)} could not be read${code(f)}`,
  'endpoints.probe-failed': (f) =>
    f.status == null
      ? `endpoint ${String(f.provider)} could not be reached${code(f)}; is it running?`
      : `endpoint ${String(f.provider)} answered its model list with HTTP ${String(f.status)}`,
  'log.records-dropped': (f, home) => `${count(f.count, 'log record')} could not be written to ${home}/logs/host.log`,
};

/** A warning or error as one readable line, `bastion: warning: <sentence>`. */
export function hostWarningLine(record: LogRecord, home: string): string {
  const sentence = Object.hasOwn(SENTENCES, record.event) ? SENTENCES[record.event] : undefined;
  const text =
    sentence?.(record.fields, home) ??
    `Bastion noted ${record.event}${code(record.fields)}; its record is in ${home}/logs/host.log`;
  return `bastion: ${record.level === 'error' ? 'error' : 'warning'}: ${terminalLine(text)}\n`;
}

/** Events whose failure the host also throws, which the CLI then prints with its whole message. */
const THROWN = ['store.unusable'];

/**
 * The host options that tell its warnings and errors as hostWarningLine does, except those in
 * `told`: events the command says itself on its own line (a refused command's `[run] … refused`).
 */
export function readableHostWarnings(home: string, told: readonly string[] = []): { stderr: 'none'; logTap: LogSink } {
  const skip = new Set([...THROWN, ...told]);
  return {
    stderr: 'none',
    logTap: (record) => {
      if ((record.level === 'warn' || record.level === 'error') && !skip.has(record.event))
        process.stderr.write(hostWarningLine(record, home));
    },
  };
}
