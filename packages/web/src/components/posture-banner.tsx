import type { HandshakeResponse } from '@bastion/bridge';

/** What protects this session, from the host's own report (the sidecar never decides it). */
export function PostureBanner({ handshake }: { handshake: HandshakeResponse | undefined }) {
  if (!handshake) return <div className="posture posture-unknown">Connecting…</div>;
  const { sandbox, shell, reason, platform } = handshake.capabilities;
  const sandboxed = sandbox !== 'none';
  return (
    <div
      className={sandboxed ? 'posture posture-ok' : 'posture posture-warn'}
      role="status"
      aria-label="Security posture"
    >
      <span>{sandboxed ? `Sandboxed (${sandbox})` : 'Not sandboxed'}</span>
      <span aria-hidden="true"> · </span>
      <span>{shell ? 'Shell available' : 'Shell withheld'}</span>
      {(!sandboxed || !shell) && reason && <span className="posture-reason"> — {reason}</span>}
      <span className="posture-platform"> ({platform})</span>
    </div>
  );
}
