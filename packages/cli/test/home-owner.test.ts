/**
 * One Bastion a home (SEC-004), as real CLI processes: a second `start` is refused naming the
 * holder, `run` refuses, `secrets set`, `secrets delete` and `open` go through the running host's
 * control socket, and a SIGKILLed holder's lock and socket do not block the next start.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { askRunningHost, holderStatusSchema } from '@bastion/host';
import { isAlive, waitFor, makeTempDir } from '@bastion/test-support';
import { runCli, startHolder, stoppedAfterEachTest } from './support/cli-process.js';

const started = stoppedAfterEachTest();

function makeHome(): { home: string; workspace: string } {
  const root = makeTempDir();
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  return { home: join(root, 'home'), workspace };
}

function hostLogEvents(home: string, event: string): number {
  return readFileSync(join(home, 'logs', 'host.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"event":"${event}"`)).length;
}

function sessionCount(home: string): number {
  const db = new Database(join(home, 'sessions.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('one Bastion a home', () => {
  it('refuses a second start on the same home with exit 2, naming the holder (pid, UI) and `bastion open`, and starts no second host', async () => {
    const { home, workspace } = makeHome();
    const holder = startHolder(started, home, workspace);
    const line = await holder.ready;
    const second = await runCli(['start', '--no-open', '--home', home, '--workspace', workspace]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`pid ${line.pid.host}`);
    expect(second.stderr).toContain(line.ui);
    expect(second.stderr).toContain(`bastion open --home ${home}`);
    expect(second.stdout).not.toContain('Bastion is running');
    // The holder is untouched: one host and one sidecar ever started on this home, and it still serves.
    expect(hostLogEvents(home, 'host.ready')).toBe(1);
    expect(hostLogEvents(home, 'runs.interrupted')).toBe(0);
    expect(isAlive(line.pid.sidecar)).toBe(true);
  });

  it('bastion open prints a fresh single-use launch link from the running host; it works once', async () => {
    const { home, workspace } = makeHome();
    const holder = startHolder(started, home, workspace);
    const line = await holder.ready;
    const opened = await runCli(['open', '--json', '--home', home]);
    expect(opened.code).toBe(0);
    const { launch } = JSON.parse(opened.stdout) as { launch: string };
    expect(launch.startsWith(`${new URL(line.ui).origin}/desktop/launch?ticket=`)).toBe(true);
    const first = await fetch(launch, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('set-cookie')).toBeTruthy();
    const replay = await fetch(launch, { redirect: 'manual' });
    expect(replay.status).toBe(403);
    expect(replay.headers.get('set-cookie')).toBeNull();
  });

  it('bastion open without a running host exits 1 and says how to start one', async () => {
    const { home } = makeHome();
    const opened = await runCli(['open', '--home', home]);
    expect(opened.code).toBe(1);
    expect(opened.stderr).toContain(`no Bastion is running on ${home}`);
    expect(opened.stderr).toContain('bastion start');
  });

  it('bastion run while a host owns the home refuses with exit 2, naming when, where and as what the running host started (its own start time), its pid and UI, why and the three ways on, and creates no session behind its back', async () => {
    const { home, workspace } = makeHome();
    const before = Date.now();
    const holder = startHolder(started, home, workspace);
    const line = await holder.ready;
    const after = Date.now();
    // The running host's own word for when it started, asked as a second process asks it.
    const status = await askRunningHost(home, { op: 'status' }, holderStatusSchema);
    const startedAt = Date.parse(status?.started_at ?? '');
    expect(startedAt).toBeGreaterThanOrEqual(before);
    expect(startedAt).toBeLessThanOrEqual(after);
    const run = await runCli(['run', '--provider', 'demo', '--home', home, '--workspace', workspace, 'hello']);
    expect(run.code).toBe(2);
    const lines = run.stderr.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(`bastion: Bastion is already running for this data folder: ${home}`);
    const time = new Date(startedAt);
    const hhmm = `${String(time.getHours()).padStart(2, '0')}:${String(time.getMinutes()).padStart(2, '0')}`;
    // "on <date> at" only when the run came on the next day; the minutes ago as the run counted them.
    const said =
      /^bastion: it started (?:at|on \d{4}-\d\d-\d\d at) (\d\d:\d\d) \((?:less than a minute|\d+ min) ago\) as `bastion start` in (.*)$/.exec(
        lines[1] ?? '',
      );
    expect(said?.[1]).toBe(hhmm);
    expect(said?.[2]).toBe(`${realpathSync(workspace)}: pid ${line.pid.host}, UI ${line.ui}`);
    expect(lines.slice(2)).toEqual([
      'bastion: one Bastion at a time owns a data folder (its sessions database, approvals and undo records)',
      `bastion: nothing was run; give the prompt in its UI (bastion open --home ${home}), or stop it first (Ctrl-C where it runs), or use --home DIR for a separate data folder`,
      '',
    ]);
    // The UI's address as printed carries no launch ticket: opening it signs nobody in.
    expect(run.stderr).not.toContain('ticket');
    const opened = await fetch(line.ui, { redirect: 'manual' });
    expect(opened.headers.get('set-cookie')).toBeNull();
    expect(sessionCount(home)).toBe(0);
    expect(hostLogEvents(home, 'host.ready')).toBe(1);
  });

  it('bastion secrets set while a host runs stores every key through that host, concurrently, none lost', async () => {
    const { home, workspace } = makeHome();
    const holder = startHolder(started, home, workspace);
    const line = await holder.ready;
    const providers = ['openai', 'anthropic', 'openrouter'];
    const results = await Promise.all(
      providers.map((provider) => runCli(['secrets', 'set', provider, '--home', home], `key-for-${provider}\n`)),
    );
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`through the running Bastion (pid ${line.pid.host})`);
    }
    const auth = JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as {
      entries: Record<string, { key: string }>;
    };
    for (const provider of providers) expect(auth.entries[provider]?.key).toBe(`key-for-${provider}`);
    expect(hostLogEvents(home, 'host.ready')).toBe(1);
  });

  it('bastion secrets delete while a host runs removes that key through that host and leaves the others', async () => {
    const { home, workspace } = makeHome();
    const holder = startHolder(started, home, workspace);
    const line = await holder.ready;
    for (const provider of ['openai', 'anthropic'])
      expect((await runCli(['secrets', 'set', provider, '--home', home], `key-for-${provider}\n`)).code).toBe(0);
    const deleted = await runCli(['secrets', 'delete', 'openai', '--home', home]);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toBe(
      `bastion: deleted the key for openai from auth.json through the running Bastion (pid ${line.pid.host})\n`,
    );
    const auth = JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as { entries: Record<string, unknown> };
    expect(auth.entries).toEqual({ anthropic: { type: 'api', key: 'key-for-anthropic' } });
    expect(hostLogEvents(home, 'host.ready')).toBe(1);
  });

  it('bastion secrets delete with no host running removes the key; again, it says none was stored and changes nothing; an unknown provider exits 2', async () => {
    const { home } = makeHome();
    expect((await runCli(['secrets', 'set', 'openrouter', '--home', home], 'key-for-openrouter\n')).code).toBe(0);
    const deleted = await runCli(['secrets', 'delete', 'openrouter', '--home', home]);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toBe('bastion: deleted the key for openrouter from auth.json\n');
    const authFile = join(home, 'auth.json');
    expect((JSON.parse(readFileSync(authFile, 'utf8')) as { entries: object }).entries).toEqual({});
    const before = readFileSync(authFile);
    const again = await runCli(['secrets', 'delete', 'openrouter', '--home', home]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('bastion: no key for openrouter was stored; auth.json is unchanged\n');
    expect(readFileSync(authFile).equals(before)).toBe(true);
    const unknown = await runCli(['secrets', 'delete', 'not-a-provider', '--home', home]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'bastion: could not delete the key: SECRETS_PROVIDER_UNKNOWN: no provider not-a-provider',
    );
  });

  it('concurrent bastion secrets set with no host running lose no key (one owns the home, the others go through it)', async () => {
    const { home } = makeHome();
    const providers = ['openai', 'anthropic', 'openrouter'];
    const results = await Promise.all(
      providers.map((provider) => runCli(['secrets', 'set', provider, '--home', home], `key-for-${provider}\n`)),
    );
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const auth = JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as {
      entries: Record<string, { key: string }>;
    };
    for (const provider of providers) expect(auth.entries[provider]?.key).toBe(`key-for-${provider}`);
  });

  it('a SIGKILLed holder leaves no lock that blocks the next start: its dead socket is replaced', async () => {
    const { home, workspace } = makeHome();
    const first = startHolder(started, home, workspace);
    const line = await first.ready;
    first.child.kill('SIGKILL');
    await waitFor(() => !isAlive(line.pid.host), 5_000, 'the holder to die');
    expect(existsSync(join(home, 'host.sock'))).toBe(true);
    const next = startHolder(started, home, workspace);
    const nextLine = await next.ready;
    expect(nextLine.pid.host).not.toBe(line.pid.host);
    const opened = await runCli(['open', '--json', '--home', home]);
    expect(opened.code).toBe(0);
    expect((JSON.parse(opened.stdout) as { launch: string }).launch.startsWith(new URL(nextLine.ui).origin)).toBe(true);
  });
});
