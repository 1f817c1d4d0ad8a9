import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIFF_PREVIOUS_UNKNOWN_NOTE } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { resolveWritable } from './workspace-files.js';
import { writeQuestionDiff } from './write-question-diff.js';

const KEY = 'sk-held-in-auth-json-1234';
const held = () => [{ kind: 'openai', value: KEY }];

describe('writeQuestionDiff (the host’s own diff of a write it asks about)', () => {
  // Made before the tests, not as the file is read: a run whose filter skips them all (-t) runs no
  // hook, and the setup file's removal would not see it.
  let workspace = '';
  beforeAll(() => {
    workspace = join(makeTempDir('bastion-question-diff-'), 'ws');
    mkdirSync(workspace, { recursive: true });
  });
  const target = (path: string) => resolveWritable(workspace, path);

  it('diffs the bytes held against the file as it is, and a new file against /dev/null', () => {
    writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    expect(writeQuestionDiff(target('notes.txt'), Buffer.from('alpha\ngamma\n'), held)).toBe(
      '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n',
    );
    expect(writeQuestionDiff(target('made.txt'), Buffer.from('made\n'), held)).toBe(
      '--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1,1 @@\n+made\n',
    );
  });

  it('cuts a held credential from both sides before diffing', () => {
    writeFileSync(join(workspace, 'env.txt'), `OLD=${KEY}\n`);
    const diff = writeQuestionDiff(target('env.txt'), Buffer.from(`NEW=${KEY}\n`), held);
    expect(diff).not.toContain(KEY);
    expect(diff).toContain("+NEW=[redacted: Bastion's openai credential]");
    expect(diff).toContain("-OLD=[redacted: Bastion's openai credential]");
  });

  it('says an earlier binary content was not compared, and gives no diff of bytes that are not text', () => {
    writeFileSync(join(workspace, 'logo.png'), Buffer.from([0x89, 0x50, 0, 1]));
    expect(writeQuestionDiff(target('logo.png'), Buffer.from('text\n'), held)).toBe(
      `--- a/logo.png\n+++ b/logo.png\n${DIFF_PREVIOUS_UNKNOWN_NOTE}\n`,
    );
    expect(writeQuestionDiff(target('made.bin'), Buffer.from([0, 1, 2]), held)).toBeUndefined();
    expect(writeQuestionDiff(target('latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]), held)).toBeUndefined();
  });

  it('gives no diff when the held credentials cannot be read, rather than one that might show one', () => {
    const unreadable = () => {
      throw new Error('auth.json unreadable');
    };
    expect(writeQuestionDiff(target('notes.txt'), Buffer.from(`KEY=${KEY}\n`), unreadable)).toBeUndefined();
  });
});
