import { describe, expect, it } from 'vitest';
import type { SessionChange, SessionChangesResponse } from '@bastion/bridge';
import * as text from './session-changes.js';

const EDITED: SessionChange = {
  path: 'src/app.ts',
  status: 'modified',
  diff: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,2 @@\n-old\n+new\n keep\n',
  additions: 1,
  deletions: 1,
};
const CREATED: SessionChange = {
  path: 'notes.md',
  status: 'added',
  diff: '--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+one\n+two',
  additions: 2,
  deletions: 0,
};
const BINARY: SessionChange = { path: 'logo.png', status: 'modified', no_diff: 'binary' };
const CUT: SessionChange = {
  path: 'big.txt',
  status: 'added',
  diff: '--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,900 @@\n+a\n\\ diff truncated\n',
  additions: 1,
  deletions: 0,
};

const response = (files: SessionChange[], more = 0, commands = 0): SessionChangesResponse => ({
  session_id: 'ses_1',
  files,
  more,
  commands,
});

describe('changesLabel', () => {
  it('reads "Changes" until the count is known, then counts the files listed and those left out', () => {
    expect(text.changesLabel(undefined)).toBe('Changes');
    expect(text.changesLabel(response([]))).toBe('Changes (0)');
    expect(text.changesLabel(response([EDITED, CREATED], 3))).toBe('Changes (5)');
  });
});

describe('changesSummary', () => {
  it('counts the files listed and adds up their lines, a file without a diff adding none', () => {
    expect(text.changesSummary(response([EDITED, CREATED, BINARY]))).toBe('3 files changed, +3 −1');
    expect(text.changesSummary(response([CREATED]))).toBe('1 file changed, +2 −0');
  });

  it('says that no file changed when none is listed', () => {
    expect(text.changesSummary(response([]))).toBe('No file changed by the agent’s file tools yet.');
  });
});

describe('changesPatch', () => {
  it('joins the diffs in their order, each ending in a newline, leaving out files without one', () => {
    expect(text.changesPatch([EDITED, BINARY, CREATED])).toBe(`${EDITED.diff}${CREATED.diff}\n`);
  });

  it('is empty when no file has a diff', () => {
    expect(text.changesPatch([BINARY])).toBe('');
  });
});

describe('patchGapNote', () => {
  it('says nothing when the patch holds every file whole', () => {
    expect(text.patchGapNote([EDITED, CREATED])).toBeUndefined();
  });

  it('names the files left out and the diffs cut short', () => {
    expect(text.patchGapNote([EDITED, BINARY])).toBe('The patch leaves out 1 file shown without a diff.');
    expect(text.patchGapNote([CUT, BINARY, { ...BINARY, path: 'b.png' }])).toBe(
      'The patch leaves out 2 files shown without a diff and holds 1 diff cut short, which will not apply as it is.',
    );
  });
});

describe('noDiffSentence', () => {
  it('has a sentence of its own for each reason, and one for a reason it does not know', () => {
    const reasons = ['not-kept', 'binary', 'too-large', 'unreadable', 'not-compared'] as const;
    const sentences = reasons.map(text.noDiffSentence);
    expect(new Set(sentences).size).toBe(reasons.length);
    expect(text.noDiffSentence('binary')).toBe('No diff: it is a binary file, or was one before the session.');
    expect(text.noDiffSentence('later-reason' as SessionChange['no_diff'])).toBe('No diff to show.');
    expect(text.noDiffSentence(undefined)).toBe('No diff to show.');
  });
});

describe('commandsNote and moreNote', () => {
  it('say nothing for none, and count one and many in words', () => {
    expect(text.commandsNote(0)).toBeUndefined();
    expect(text.commandsNote(1)).toBe(
      'This session also ran a command; what it changed is not shown here — check git status.',
    );
    expect(text.commandsNote(2)).toBe(
      'This session also ran 2 commands; what they changed is not shown here — check git status.',
    );
    expect(text.moreNote(0)).toBeUndefined();
    expect(text.moreNote(1)).toBe('1 more file changed is not listed here.');
    expect(text.moreNote(4)).toBe('4 more files changed are not listed here.');
  });
});

describe('changesFailure', () => {
  it('turns the codes it knows into a sentence, and any other into its message and code', () => {
    expect(text.changesFailure({ code: 'WORKSPACE_NOT_GRANTED', message: 'x' })).toBe(
      'This session’s folder is not open in this Bastion, so its files cannot be read.',
    );
    expect(text.changesFailure({ code: 'SESSION_NOT_FOUND', message: 'no such session' })).toBe(
      'This session no longer exists, so it has no changes to show.',
    );
    expect(text.changesFailure({ code: 'DB_BUSY', message: 'the database is busy' })).toBe(
      'The changes could not be read: the database is busy (DB_BUSY)',
    );
    expect(text.changesFailure(new Error('boom'))).toBe('The changes could not be read: Something went wrong.');
  });
});
