/**
 * Images with a prompt from the CLI, as real processes on the offline demo model: `run --image`
 * sends each file (the demo names its type and exact size), a relative path is read from where the
 * command was typed, `--json` gives the image parts as the daemon stored them and never their
 * bytes. Every refusal — a missing file, a folder, a FIFO, a text file named .png, a file over
 * IMAGE_MAX_BYTES, more than AGENT_MAX_IMAGES, a model that takes none — exits 2 with one line
 * naming the file and why, and no session is made. In chat, `/image PATH` attaches an image to the
 * next prompt, `/image` lists what is attached and `/image --clear` drops it.
 */
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_MAX_IMAGES, IMAGE_MAX_BYTES } from '@bastion/protocol';
import { startScriptedEndpoint, waitFor } from '@bastion/test-support';
import {
  CLI,
  projectsRemovedAfterEachTest,
  runCli,
  runCliInTerminal,
  scriptedRun,
  userMessagesBySession,
  type CliResult,
} from './support/cli-process.js';

const tempProject = projectsRemovedAfterEachTest();

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** A 68-byte file that is a PNG by its first bytes. */
const PNG = Buffer.concat([Buffer.from(PNG_SIGNATURE), Buffer.alloc(60)]);
/** A 1 234-byte file that is a JPEG by its first bytes. */
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(1230)]);

/** A home (not made yet), a workspace, and beside them (outside the workspace) a.png and b.jpg. */
function project(): { root: string; home: string; workspace: string; png: string; jpeg: string } {
  const { root, home, workspace } = tempProject();
  const png = join(root, 'a.png');
  const jpeg = join(root, 'b.jpg');
  writeFileSync(png, PNG);
  writeFileSync(jpeg, JPEG);
  return { root, home, workspace, png, jpeg };
}

/** `bastion run --home --workspace --provider demo …args`, from `cwd` (this process's when none). */
function runDemo(
  { home, workspace }: { home: string; workspace: string },
  args: readonly string[],
  cwd?: string,
): Promise<CliResult> {
  const child = spawn(
    process.execPath,
    [CLI, 'run', '--home', home, '--workspace', workspace, '--provider', 'demo', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd === undefined ? {} : { cwd }) },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** The sessions `bastion sessions --all --json` lists on `home`. */
async function sessionsOn(home: string): Promise<unknown[]> {
  const listed = await runCli(['sessions', '--all', '--json', '--home', home]);
  expect(listed.code).toBe(0);
  return listed.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** A file of `size` bytes (sparse: no disk is spent) that starts as a PNG does. */
function sparsePng(path: string, size: number): void {
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, size);
    writeSync(fd, Buffer.from(PNG_SIGNATURE), 0, PNG_SIGNATURE.length, 0);
  } finally {
    closeSync(fd);
  }
}

const REPLY_ONE_PNG = 'demo: 1 image received (PNG, 68 bytes); the demo model cannot look at images.\n';

describe('bastion run --image', () => {
  it('sends the image with the prompt: the demo reply names its type and exact size, and the prompt its image', async () => {
    const paths = project();
    const result = await runDemo(paths, ['--image', paths.png, 'what is this']);
    expect(result.stderr).not.toContain('did not start');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`[image a.png (PNG, 68 bytes)]\n${REPLY_ONE_PNG}`);
    // One prompt, holding the image (its stored form is the daemon's; --json shows it as the API gives it).
    const [prompts] = [...userMessagesBySession(paths.home).values()];
    expect(prompts).toHaveLength(1);
    expect(prompts?.[0]).toContain('"a.png"');
  });

  it('sends two images in the order given', async () => {
    const paths = project();
    const result = await runDemo(paths, ['--image', paths.png, '--image', paths.jpeg, 'compare them']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        '[image a.png (PNG, 68 bytes)]',
        '[image b.jpg (JPEG, 1234 bytes)]',
        'demo: 2 images received (PNG, 68 bytes; JPEG, 1234 bytes); the demo model cannot look at images.',
        '',
      ].join('\n'),
    );
  });

  it('sends an image to a continued session on its own model', async () => {
    const paths = project();
    expect((await runDemo(paths, ['ls'])).code).toBe(0);
    // No --provider: the session's own model (demo) is the one checked.
    const result = await runCli([
      'run',
      '--home',
      paths.home,
      '--workspace',
      paths.workspace,
      '--continue',
      '--image',
      paths.png,
      'and this?',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('continuing session');
    expect(result.stdout).toBe(`[image a.png (PNG, 68 bytes)]\n${REPLY_ONE_PNG}`);
    expect(await sessionsOn(paths.home)).toHaveLength(1);
  });

  it('reads a relative path from where the command was typed, not from the workspace', async () => {
    const paths = project();
    // A file of the same name in the workspace, of another type: not the one meant.
    writeFileSync(join(paths.workspace, 'a.png'), JPEG);
    const result = await runDemo(paths, ['--image', 'a.png', 'what is this'], paths.root);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`[image a.png (PNG, 68 bytes)]\n${REPLY_ONE_PNG}`);
  });

  it('--json: the run-started line carries the stored image parts, and the base64 of the image is nowhere', async () => {
    const paths = project();
    const result = await runDemo(paths, ['--json', '--image', paths.png, '--image', paths.jpeg, 'what is this']);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; images?: unknown; text?: string });
    const started = events[0];
    expect(started?.type).toBe('run-started');
    expect(started?.images).toEqual([
      { type: 'image', image_id: expect.any(String), media_type: 'image/png', bytes: 68, name: 'a.png' },
      { type: 'image', image_id: expect.any(String), media_type: 'image/jpeg', bytes: 1234, name: 'b.jpg' },
    ]);
    expect(events.slice(1).every((event) => event.images === undefined)).toBe(true);
    expect(events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('')).toBe(
      'demo: 2 images received (PNG, 68 bytes; JPEG, 1234 bytes); the demo model cannot look at images.',
    );
    expect(result.stdout).not.toContain(PNG.toString('base64'));
    expect(result.stdout).not.toContain(JPEG.toString('base64').slice(0, 40));
  });

  it(`takes an image of exactly IMAGE_MAX_BYTES (${IMAGE_MAX_BYTES})`, async () => {
    const paths = project();
    const largest = join(paths.root, 'largest.png');
    sparsePng(largest, IMAGE_MAX_BYTES);
    const result = await runDemo(paths, ['--image', largest, 'what is this']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`demo: 1 image received (PNG, ${IMAGE_MAX_BYTES} bytes);`);
  });
});

describe('bastion run --image refusals: exit 2, one line naming the file and why, no session made', () => {
  /** Run with `images`, expecting the refusal `why` and nothing started: no home, so no session. */
  async function expectRefused(images: string[], why: string): Promise<void> {
    const paths = project();
    const result = await runDemo(paths, [...images.flatMap((image) => ['--image', image]), 'what is this']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`bastion: ${why}; nothing was run\n`);
    expect(result.stdout).toBe('');
    expect(existsSync(paths.home)).toBe(false);
    expect(await sessionsOn(paths.home)).toEqual([]);
  }

  it('refuses a file that does not exist', async () => {
    const missing = join(tempProject().root, 'missing.png');
    await expectRefused([missing], `image ${missing}: no such file`);
  });

  it('refuses a folder', async () => {
    const folder = join(tempProject().root, 'shots.png');
    mkdirSync(folder);
    await expectRefused([folder], `image ${folder}: is a folder, not an image file`);
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    const fifo = join(tempProject().root, 'pipe.png');
    execFileSync('mkfifo', [fifo]);
    await expectRefused([fifo], `image ${fifo}: is not a regular file`);
  });

  it('refuses a text file named .png: the type is told by the first bytes, not the name', async () => {
    const text = join(tempProject().root, 'x.png');
    writeFileSync(text, 'not an image at all\n');
    await expectRefused([text], `image ${text}: is not a PNG, JPEG, GIF or WebP image (by its first bytes)`);
  });

  it('refuses an SVG (text that draws a picture, not one of the formats taken)', async () => {
    const svg = join(tempProject().root, 'logo.svg');
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
    await expectRefused([svg], `image ${svg}: is not a PNG, JPEG, GIF or WebP image (by its first bytes)`);
  });

  it('refuses an empty file', async () => {
    const empty = join(tempProject().root, 'empty.png');
    writeFileSync(empty, '');
    await expectRefused([empty], `image ${empty}: is empty`);
  });

  it('refuses a file one byte over IMAGE_MAX_BYTES, naming its size and the limit', async () => {
    const over = join(tempProject().root, 'huge.png');
    sparsePng(over, IMAGE_MAX_BYTES + 1);
    await expectRefused(
      [over],
      `image ${over}: is ${IMAGE_MAX_BYTES + 1} bytes, over the limit of ${IMAGE_MAX_BYTES} bytes (3.75 MiB)`,
    );
  });

  it('refuses the second image when the first is fine: nothing is sent', async () => {
    const { png, root } = project();
    const missing = join(root, 'gone.jpg');
    await expectRefused([png, missing], `image ${missing}: no such file`);
  });

  it(`refuses more than AGENT_MAX_IMAGES (${AGENT_MAX_IMAGES}) images`, async () => {
    const paths = project();
    const result = await runDemo(paths, [
      ...Array.from({ length: AGENT_MAX_IMAGES + 1 }, () => ['--image', paths.png]).flat(),
      'what is this',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `bastion: --image: ${AGENT_MAX_IMAGES + 1} images: at most ${AGENT_MAX_IMAGES} go with one message`,
    );
    expect(existsSync(paths.home)).toBe(false);
  });

  it('refuses --image with --compact and in chat, starting nothing', async () => {
    const paths = project();
    const compact = await runDemo(paths, ['--continue', '--compact', '--image', paths.png]);
    expect(compact.code).toBe(2);
    expect(compact.stderr).toContain('bastion: --image goes with a PROMPT, not --compact\n');
    const chat = await runCli(['chat', '--home', paths.home, '--workspace', paths.workspace, '--image', paths.png]);
    expect(chat.code).toBe(2);
    expect(chat.stderr).toContain('bastion: --image is for bastion run; in chat, a line /image PATH attaches one');
    expect(existsSync(paths.home)).toBe(false);
  });

  it('refuses a custom endpoint’s model, which takes no images, before a session is made or the endpoint is asked', async () => {
    const endpoint = await startScriptedEndpoint([{ kind: 'text', pieces: ['never sent'] }]);
    try {
      const run = scriptedRun(endpoint);
      const png = join(run.root, 'a.png');
      writeFileSync(png, PNG);
      const result = await runCli([...run.args, '--image', png, 'what is this']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('takes no images; choose a model that does with --provider ID --model ID');
      expect(result.stdout).toBe('');
      expect(endpoint.seen).toHaveLength(0);
      expect(await sessionsOn(run.home)).toEqual([]);
    } finally {
      await endpoint.close();
    }
  });

  it('refuses a continued session whose model takes no images, leaving the session as it was', async () => {
    const endpoint = await startScriptedEndpoint([{ kind: 'text', pieces: ['first answer'] }]);
    try {
      const run = scriptedRun(endpoint);
      expect((await runCli([...run.args, 'hello'])).code).toBe(0);
      const before = await sessionsOn(run.home);
      expect(before).toHaveLength(1);
      const png = join(run.root, 'a.png');
      writeFileSync(png, PNG);
      const result = await runCli([...run.args, '--continue', '--mode', 'read-only', '--image', png, 'and this?']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('takes no images');
      expect(endpoint.seen).toHaveLength(1);
      // Not even --mode was applied: the refusal came before anything changed.
      expect(await sessionsOn(run.home)).toEqual(before);
    } finally {
      await endpoint.close();
    }
  });
});

describe('chat /image', () => {
  /** `bastion chat` on the demo model in a fresh project. */
  function chatArgs(paths: { home: string; workspace: string }): string[] {
    return ['chat', '--home', paths.home, '--workspace', paths.workspace, '--provider', 'demo'];
  }

  it('attaches an image to the next prompt only, lists and drops what is attached', async () => {
    const paths = project();
    const lines = [
      '/image',
      `/image ${paths.png}`,
      '/image',
      'what is this',
      '/image',
      `/image ${paths.jpeg}`,
      '/image --clear',
      '/image',
      '/image --clear',
      'and now?',
    ];
    const result = await runCli(chatArgs(paths), `${lines.join('\n')}\n`);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith(`[image a.png (PNG, 68 bytes)]\n${REPLY_ONE_PNG}`)).toBe(true);
    expect(result.stdout.match(/\[image /g)).toHaveLength(1);
    expect(result.stdout.match(/received/g)).toHaveLength(1);
    // Two prompts: the first with the image, the second (after /image --clear) without.
    const [prompts] = [...userMessagesBySession(paths.home).values()];
    const images = prompts?.map((content) =>
      (JSON.parse(content) as { type: string }[]).filter((part) => part.type === 'image'),
    );
    expect(images?.map((parts) => parts.length)).toEqual([1, 0]);
    const said = result.stderr
      .split('\n')
      .filter((line) => /image|attached|dropped/.test(line) && !line.includes('/help lists'));
    expect(said).toEqual([
      'bastion: no image is attached; /image PATH attaches one to your next message',
      `bastion: attached ${paths.png} (PNG, 68 bytes); it goes with your next message`,
      'bastion: attached to your next message: a.png (PNG, 68 bytes); /image --clear drops them',
      'bastion: no image is attached; /image PATH attaches one to your next message',
      `bastion: attached ${paths.jpeg} (JPEG, 1234 bytes); it goes with your next message`,
      'bastion: dropped 1 image',
      'bastion: no image is attached; /image PATH attaches one to your next message',
      'bastion: no image was attached',
    ]);
  });

  it('refuses what run --image refuses, in words, and chat goes on', async () => {
    const paths = project();
    const text = join(paths.root, 'x.png');
    writeFileSync(text, 'plain text\n');
    const lines = [
      `/image ${text}`,
      `/image ${join(paths.root, 'missing.png')}`,
      ...Array.from({ length: AGENT_MAX_IMAGES + 1 }, () => `/image ${paths.png}`),
      'count them',
    ];
    const result = await runCli(chatArgs(paths), `${lines.join('\n')}\n`);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `bastion: not attached: image ${text}: is not a PNG, JPEG, GIF or WebP image (by its first bytes)\n`,
    );
    expect(result.stderr).toContain(`bastion: not attached: image ${join(paths.root, 'missing.png')}: no such file\n`);
    expect(result.stderr).toContain(
      `bastion: not attached: ${AGENT_MAX_IMAGES} images attached already, the most one message takes; /image --clear drops them\n`,
    );
    expect(result.stdout).toContain(`demo: ${AGENT_MAX_IMAGES} images received (PNG, 68 bytes; PNG, 68 bytes;`);
  });

  it('/rewind attaches the rewound prompt’s images again, for the prompt sent again', async () => {
    const paths = project();
    const lines = [`/image ${paths.png}`, `/image ${paths.jpeg}`, 'what are these', '/rewind', '/image', 'again'];
    const result = await runCli(chatArgs(paths), `${lines.join('\n')}\n`);
    expect(result.code).toBe(0);
    const reply = 'demo: 2 images received (PNG, 68 bytes; JPEG, 1234 bytes); the demo model cannot look at images.\n';
    const shown = '[image a.png (PNG, 68 bytes)]\n[image b.jpg (JPEG, 1234 bytes)]\n';
    expect(result.stdout).toBe(`${shown}${reply}${shown}${reply}`);
    expect(result.stderr).toContain(
      'bastion: attached again to your next message: a.png (PNG, 68 bytes), b.jpg (JPEG, 1234 bytes); /image --clear drops them\n',
    );
    expect(result.stderr).toContain(
      'bastion: attached to your next message: a.png (PNG, 68 bytes), b.jpg (JPEG, 1234 bytes); /image --clear drops them\n',
    );
  });

  it('is in /help', async () => {
    const paths = project();
    const result = await runCli(chatArgs(paths), '/help\n');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('  /image PATH            attach the image at PATH');
    expect(result.stderr).toContain('  /image --clear         drop them\n');
  });

  it('on a terminal: Tab completes /image, a path in quotes is taken whole, and the next prompt carries the image', async () => {
    const paths = project();
    const spaced = join(paths.root, 'my shot.png');
    writeFileSync(spaced, PNG);
    const cli = runCliInTerminal(chatArgs(paths));
    const prompts = () => cli.shown().split('bastion> ').length - 1;
    await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
    cli.type('/ima\t');
    // The intro line names /image too: the completion is looked for after the prompt.
    await waitFor(() => cli.shown().split('bastion> ').at(-1)?.includes('/image') === true, 10_000, 'the completion');
    cli.type(` '${spaced}'\r`);
    await waitFor(() => cli.shown().includes('it goes with your next message'), 30_000, 'the attachment');
    expect(cli.shown()).toContain(`attached ${spaced} (PNG, 68 bytes)`);
    cli.type('what is this\r');
    // The prompt after the run (not the reply's text, which comes before the run ends: Ctrl-D then would go unread).
    await waitFor(() => prompts() === 3, 30_000, 'the prompt after the run');
    expect(cli.shown()).toContain('[image my shot.png (PNG, 68 bytes)]');
    expect(cli.shown()).toContain('demo: 1 image received (PNG, 68 bytes)');
    cli.type('\u0004');
    expect(await cli.closed).toBe(0);
  });
});
