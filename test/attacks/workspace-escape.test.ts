/**
 * Attacks on the daemon's workspace file routes through the real perimeter and the real sidecar
 * (under srt): path traversal and symlink escapes. Each proves no side effect: the outside
 * canary's text never comes back, outside and protected files keep their bytes, nothing is created.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTempHost, type TempHost } from '../../packages/host/test/support/temp-host.js';
import { describeAttack } from '../support/attack.js';

const CANARY = 'outside-canary-5e1b9c';
let host: TempHost;
let outside: string;
let outsideFile: string;

beforeAll(async () => {
  host = await startTempHost();
  outside = join(host.root, 'outside');
  mkdirSync(outside);
  outsideFile = join(outside, 'secret.txt');
  writeFileSync(outsideFile, CANARY);
  // A sibling whose name has the workspace root as a string prefix.
  mkdirSync(`${host.workspace}-sibling`);
  writeFileSync(join(`${host.workspace}-sibling`, 'secret.txt'), CANARY);
  symlinkSync(outsideFile, join(host.workspace, 'link-to-secret'));
  symlinkSync(outside, join(host.workspace, 'link-to-outside-dir'));
  mkdirSync(join(host.workspace, '.git'));
  writeFileSync(join(host.workspace, '.git', 'config'), '[core]\n');
  symlinkSync(join(host.workspace, '.git', 'config'), join(host.workspace, 'innocent-name'));
}, 60_000);

afterAll(async () => {
  await host.stop();
});

async function read(path: string, root = host.workspace) {
  return host.client.request<{ code?: string; content?: string }>('POST', '/workspaces/read-file', { root, path });
}

async function write(path: string, content = 'pwned') {
  return host.client.request<{ code?: string }>('POST', '/workspaces/write-file', {
    root: host.workspace,
    path,
    content,
  });
}

/** The refusal is exactly `status` and `code`, and its body names neither the canary nor the outside directory. */
function expectNoLeak(response: { status: number; body: { code?: string } }, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.body.code).toBe(code);
  expect(JSON.stringify(response.body)).not.toContain(CANARY);
  expect(JSON.stringify(response.body)).not.toContain(outside);
}

describeAttack('path-traversal', 'workspace file routes', () => {
  it('`../` climbing out of the workspace: FS_OUTSIDE_WORKSPACE, nothing read', async () => {
    const response = await read(`../outside/secret.txt`);
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
  });

  it('an absolute path outside the workspace: refused, nothing read', async () => {
    const response = await read(outsideFile);
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
  });

  it('a sibling directory sharing the root as a string prefix: refused', async () => {
    const response = await read(`../${basename(host.workspace)}-sibling/secret.txt`);
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
  });

  it('percent-encoded traversal is taken literally and climbs nowhere: FS_NOT_FOUND', async () => {
    const response = await read('..%2foutside%2fsecret.txt');
    expectNoLeak(response, 404, 'FS_NOT_FOUND');
  });

  it('a NUL byte in the path: 400 BAD_REQUEST, nothing read', async () => {
    const response = await read('README.md\u0000../../outside/secret.txt');
    expectNoLeak(response, 400, 'BAD_REQUEST');
  });

  it('a root the host never granted (the outside dir itself): FS_OUTSIDE_WORKSPACE, nothing read', async () => {
    const response = await read('secret.txt', outside);
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
  });

  it('writing through `..` into userData: FS_OUTSIDE_WORKSPACE, auth store untouched', async () => {
    const target = join(host.userData, 'auth.json');
    const before = existsSync(target) ? readFileSync(target) : undefined;
    const response = await write(`../home/auth.json`);
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
    expect(existsSync(target) ? readFileSync(target) : undefined).toEqual(before);
  });

  it('writing a protected path (.git/config): FS_PROTECTED, bytes unchanged', async () => {
    const response = await write('.git/config', '[core]\n\thooksPath = /tmp/evil\n');
    expect(response.body.code).toBe('FS_PROTECTED');
    expect(readFileSync(join(host.workspace, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });
});

describeAttack('symlink-escape', 'workspace file routes', () => {
  it('reading a symlink in the workspace that points at an outside file: FS_OUTSIDE_WORKSPACE, canary not returned', async () => {
    const response = await read('link-to-secret');
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
  });

  it('reading through a symlinked directory that points outside: FS_OUTSIDE_WORKSPACE', async () => {
    const response = await read('link-to-outside-dir/secret.txt');
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
  });

  it('listing a symlinked directory that points outside: FS_OUTSIDE_WORKSPACE, no outside names', async () => {
    const response = await host.client.request<{ code?: string }>('POST', '/workspaces/readdir', {
      root: host.workspace,
      path: 'link-to-outside-dir',
    });
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
    expect(JSON.stringify(response.body)).not.toContain('secret.txt');
  });

  it('writing through a symlinked directory: FS_OUTSIDE_WORKSPACE, nothing created outside', async () => {
    const response = await write('link-to-outside-dir/planted.txt');
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });

  it('overwriting a symlink that points at an outside file: FS_OUTSIDE_WORKSPACE, the outside file keeps its bytes', async () => {
    const response = await write('link-to-secret', 'overwritten');
    expectNoLeak(response, 403, 'FS_OUTSIDE_WORKSPACE');
    expect(readFileSync(outsideFile, 'utf8')).toBe(CANARY);
  });

  it('an innocent name that is a symlink to a protected file: FS_PROTECTED, bytes unchanged', async () => {
    const response = await write('innocent-name', 'overwritten');
    expectNoLeak(response, 403, 'FS_PROTECTED');
    expect(readFileSync(join(host.workspace, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });
});

describeAttack('path-traversal', 'workspace search by name (/workspaces/find)', () => {
  async function find(query: string, root = host.workspace) {
    return host.client.request<{ code?: string; matches?: { path: string }[] }>('POST', '/workspaces/find', {
      root,
      query,
    });
  }

  it('a query with a path in it (../outside) is refused with BAD_REQUEST, before any walk', async () => {
    expectNoLeak(await find('../outside'), 400, 'BAD_REQUEST');
  });

  it('a root that was not granted (the outside folder itself) is refused with FS_OUTSIDE_WORKSPACE, nothing listed', async () => {
    expectNoLeak(await find('secret', outside), 403, 'FS_OUTSIDE_WORKSPACE');
  });

  it('a search never walks a symlinked folder that points outside: the link may match, secret.txt behind it never does', async () => {
    const response = await find('secret');
    expect(response.status).toBe(200);
    expect(response.body.matches?.map((match) => match.path)).toEqual(['link-to-secret']);
    expect(JSON.stringify(response.body)).not.toContain(outside);
  });
});
