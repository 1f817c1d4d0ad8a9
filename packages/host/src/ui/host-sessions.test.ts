import { describe, expect, it } from 'vitest';
import { UI_MAX_HOST_SESSIONS } from '@bastion/protocol';
import { HostSessions } from './host-sessions.js';

function tokenOf(setCookie: string): string {
  return /=([^;]+);/.exec(setCookie)?.[1] ?? '';
}

describe('HostSessions', () => {
  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie named for the UI port', () => {
    const sessions = new HostSessions(4321);
    const { setCookie } = sessions.create();
    expect(setCookie).toMatch(/^bastion_session_4321=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
  });

  it('accepts its own live token among other cookies', () => {
    const sessions = new HostSessions(4321);
    const token = tokenOf(sessions.create().setCookie);
    expect(sessions.isValid(`a=b; bastion_session_4321=${token}; c=d`)).toBe(true);
  });

  it('accepts the live token even when another port planted a cookie under the same name first', () => {
    const sessions = new HostSessions(4321);
    const token = tokenOf(sessions.create().setCookie);
    expect(sessions.isValid(`bastion_session_4321=${'A'.repeat(43)}; bastion_session_4321=${token}`)).toBe(true);
  });

  it('refuses a missing, unknown, other-port or malformed token', () => {
    const sessions = new HostSessions(4321);
    const token = tokenOf(sessions.create().setCookie);
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
    const first = tokenOf(sessions.create().setCookie);
    for (let i = 0; i < UI_MAX_HOST_SESSIONS; i += 1) sessions.create();
    expect(sessions.isValid(`bastion_session_1=${first}`)).toBe(false);
  });
});

describe('HostSessions page key', () => {
  it('gives each session its own 256-bit page key, which is not in the Set-Cookie value', () => {
    const sessions = new HostSessions(4321);
    const first = sessions.create();
    const second = sessions.create();
    expect(first.pageKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first.pageKey, 'base64url')).toHaveLength(32);
    expect(first.pageKey).not.toBe(second.pageKey);
    expect(first.setCookie).not.toContain(first.pageKey);
  });

  it('accepts the cookie with its own page key, also next to a planted cookie of the same name', () => {
    const sessions = new HostSessions(4321);
    const { setCookie, pageKey } = sessions.create();
    const token = tokenOf(setCookie);
    expect(sessions.hasPageKey(`bastion_session_4321=${token}`, pageKey)).toBe(true);
    expect(sessions.hasPageKey(`bastion_session_4321=${'A'.repeat(43)}; bastion_session_4321=${token}`, pageKey)).toBe(
      true,
    );
  });

  it('refuses a live cookie without its page key: none, empty, malformed, or another live session’s', () => {
    const sessions = new HostSessions(4321);
    const mine = sessions.create();
    const other = sessions.create();
    const cookie = `bastion_session_4321=${tokenOf(mine.setCookie)}`;
    expect(sessions.isValid(cookie)).toBe(true);
    for (const key of [undefined, '', `${mine.pageKey}x`, mine.pageKey.slice(1), other.pageKey, 'A'.repeat(43)]) {
      expect(sessions.hasPageKey(cookie, key), String(key)).toBe(false);
    }
  });

  it('refuses a page key without its live cookie: missing, unknown, other port, or a dropped session', () => {
    const sessions = new HostSessions(4321);
    const { setCookie, pageKey } = sessions.create();
    const token = tokenOf(setCookie);
    for (const header of [undefined, '', `bastion_session_4321=${'A'.repeat(43)}`, `bastion_session_4322=${token}`]) {
      expect(sessions.hasPageKey(header, pageKey), String(header)).toBe(false);
    }
    for (let i = 0; i < UI_MAX_HOST_SESSIONS; i += 1) sessions.create();
    expect(sessions.hasPageKey(`bastion_session_4321=${token}`, pageKey)).toBe(false);
  });
});
