/**
 * `GET /prompts` through the real daemon app: the user's `<userData>/prompts/*.md` read afresh on
 * each call, each with its description (front matter, else its first line) and its body; every
 * file that cannot be a prompt skipped with its reason, the rest still listed.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROMPT_MAX_BYTES, type PromptListResponse } from '@bastion/protocol';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

describe('GET /prompts', () => {
  it('lists nothing, naming the folder, while <home>/prompts does not exist', async () => {
    daemon = await startInProcessDaemon();
    const listed = await daemon.request<PromptListResponse>('GET', '/prompts');
    expect(listed.body).toEqual({ folder: join(daemon.userData, 'prompts'), prompts: [], skipped: [] });
  });

  it('reads each NAME.md afresh with its description and body, and skips each file that cannot be one with its reason', async () => {
    daemon = await startInProcessDaemon();
    const folder = join(daemon.userData, 'prompts');
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'fix-issue.md'),
      '---\ndescription: "Fix a GitHub issue by number"\n---\nFix issue $ARGUMENTS.\nRun the tests.\n',
    );
    writeFileSync(join(folder, 'review.md'), '# Review the staged diff\n\nLook for missing tests.\n');
    writeFileSync(join(folder, 'notes.txt'), 'not markdown: not listed at all');
    writeFileSync(join(folder, 'Bad Name.md'), 'x');
    writeFileSync(join(folder, 'help.md'), 'my help');
    writeFileSync(join(folder, 'big.md'), 'x'.repeat(PROMPT_MAX_BYTES + 1));
    writeFileSync(join(folder, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    writeFileSync(join(folder, 'empty.md'), '---\ndescription: nothing\n---\n  \n');
    writeFileSync(join(daemon.root, 'elsewhere.md'), 'outside the folder');
    symlinkSync(join(daemon.root, 'elsewhere.md'), join(folder, 'linked.md'));
    mkdirSync(join(folder, 'folder.md'));

    const listed = (await daemon.request<PromptListResponse>('GET', '/prompts')).body;
    expect(listed.prompts).toEqual([
      { name: 'fix-issue', description: 'Fix a GitHub issue by number', body: 'Fix issue $ARGUMENTS.\nRun the tests.' },
      {
        name: 'review',
        description: 'Review the staged diff',
        body: '# Review the staged diff\n\nLook for missing tests.',
      },
    ]);
    expect(Object.fromEntries(listed.skipped.map((entry) => [entry.file, entry.reason]))).toEqual({
      'Bad Name.md': 'a name is lowercase letters, digits, - and _ (up to 48), starting with a letter or digit',
      'big.md': 'over 16 KiB',
      'empty.md': 'it is empty',
      'folder.md': 'not a regular file (a link or a folder)',
      'help.md': "/help is one of Bastion's own commands; rename the file",
      'latin1.md': 'not UTF-8 text',
      'linked.md': 'not a regular file (a link or a folder)',
    });

    writeFileSync(join(folder, 'review.md'), 'Review only the tests.');
    const again = (await daemon.request<PromptListResponse>('GET', '/prompts')).body;
    expect(again.prompts.find((prompt) => prompt.name === 'review')?.body).toBe('Review only the tests.');
  });
});
