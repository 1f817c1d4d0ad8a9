import { describe, expect, it } from 'vitest';
import { sidecarToHostFrameSchema } from './frames.js';

const check = { v: 1, type: 'policy.check', id: 'pol_1', tool: 'read_file', workspace_root: '/w', paths: ['/w/a'] };
const command = {
  v: 1,
  type: 'command.request',
  id: 'cmd_1',
  command: 'ls',
  args: [],
  cwd: '/w',
  workspace_root: '/w',
  timeout_ms: 1_000,
};

describe('the session and run a sidecar reports on policy.check and command.request', () => {
  it('are accepted as channel ids, and both frames still parse without them', () => {
    for (const frame of [check, command]) {
      expect(sidecarToHostFrameSchema.safeParse({ ...frame, session_id: 'ses_abc-1', run_id: 'run_x' }).success).toBe(
        true,
      );
      expect(sidecarToHostFrameSchema.safeParse(frame).success).toBe(true);
    }
  });

  it.each([
    ['a path', '../ses_a'],
    ['a space', 'ses a'],
    ['an empty string', ''],
    ['too long', `ses_${'a'.repeat(200)}`],
    ['not a string', 7],
  ])('refuse a session id that is %s (the frame is a schema error)', (_name, value) => {
    for (const frame of [check, command]) {
      expect(sidecarToHostFrameSchema.safeParse({ ...frame, session_id: value }).success).toBe(false);
      expect(sidecarToHostFrameSchema.safeParse({ ...frame, run_id: value }).success).toBe(false);
    }
  });
});
