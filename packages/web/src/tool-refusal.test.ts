import { describe, expect, it } from 'vitest';
import { refusalText } from './tool-refusal.js';

describe('refusalText', () => {
  it('says a model’s oversized call and a call past the step’s count were not run, the daemon’s detail after', () => {
    expect(
      refusalText({ ok: false, code: 'TOOL_INPUT_TOO_LARGE', message: 'not run: its input was 3000000 bytes' }),
    ).toBe(
      'The model sent this call with more input than a call may carry, so it was not run; the agent was told to send it in smaller parts. (not run: its input was 3000000 bytes)',
    );
    expect(refusalText({ ok: false, code: 'TOOL_CALLS_TOO_MANY', message: 'not run: call 65' })).toMatch(
      /^The model asked for more tool calls at once than one step may make, so this one was not run/,
    );
  });

  it('says a full disk (the workspace’s, or Bastion’s own storage) left nothing written', () => {
    expect(refusalText({ ok: false, code: 'FS_DISK_FULL', message: 'no space left on the device' })).toMatch(
      /^The workspace’s disk is full, so nothing was written: the file is as it was\. Free some space, then ask again\./,
    );
    expect(refusalText({ ok: false, code: 'STORAGE_FULL', message: 'no space' })).toMatch(
      /^The disk Bastion keeps its data on is full, so nothing was written\./,
    );
  });

  it('says a name too long, a permission refused and a read-only file system in words of their own, not the generic failure', () => {
    expect(refusalText({ ok: false, code: 'FS_NAME_TOO_LONG', message: 'file name too long' })).toBe(
      'The file name is too long: a name in the path is longer than the file system allows (255 bytes on most), or the whole path is.',
    );
    expect(refusalText({ ok: false, code: 'FS_ACCESS_DENIED', message: 'denied' })).toBe(
      'The file system’s permissions do not let Bastion open this path.',
    );
    expect(refusalText({ ok: false, code: 'FS_READ_ONLY', message: 'read-only' })).toBe(
      'The file system holding this path is read-only, so nothing was written.',
    );
  });

  it('says a fixed message’s words alone, and an unknown code’s message as it is', () => {
    expect(refusalText({ ok: false, code: 'TOOL_DENIED', message: 'denied by the user' })).toBe(
      'You denied this call.',
    );
    expect(refusalText({ ok: false, code: 'SOMETHING_NEW', message: 'it broke' })).toBe('Refused: it broke.');
  });
});
