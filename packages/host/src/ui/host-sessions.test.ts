import { describe, expect, it } from 'vitest';
import { UI_MAX_HOST_SESSIONS } from '@bastion/protocol';
import { HostSessions } from './host-sessions.js';

function tokenOf(setCookie: string): string {
  return /=([^;]+);/.exec(setCookie)?.[1] ?? '';
}

describe('HostSessions', () => {
  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie named for the UI port', () => {
    const sessions = new HostSessions(4321);
    const setCookie = sessions.create();
    expect(setCookie).toMatch(/^bastion_session_4321=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
  });

  it('accepts its own live token among other cookies', () => {
    const sessions = new HostSessions(4321);
    const token = tokenOf(sessions.create());
    expect(sessions.isValid(`a=b; bastion_session_4321=${token}; c=d`)).toBe(true);
  });

  it('accepts the live token even when another port planted a cookie under the same name first', () => {
    const sessions = new HostSessions(4321);
    const token = tokenOf(sessions.create());
    expect(sessions.isValid(`bastion_session_4321=${'A'.repeat(43)}; bastion_session_4321=${token}`)).toBe(true);
  });

  it('refuses a missing, unknown, other-port or malformed token', () => {
    const sessions = new HostSessions(4321);
    const token = tokenOf(sessions.create());
    for (const header of [
      undefined,
      '',
      'bastion_session_4321=',
      `bastion_session_4322=${token}`,
      `bastion_session_4321=${'A'.repeat(43)}`,
      `bastion_session_4321=${token}x`,
    ]) {
      expect(sessions.isValid(header)).toBe(false);
    }
  });

  it('keeps a bounded number of sessions, dropping the oldest', () => {
    const sessions = new HostSessions(1);
    const first = tokenOf(sessions.create());
    for (let i = 0; i < UI_MAX_HOST_SESSIONS; i += 1) sessions.create();
    expect(sessions.isValid(`bastion_session_1=${first}`)).toBe(false);
  });
});
