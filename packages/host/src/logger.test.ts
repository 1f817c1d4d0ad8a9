import {
  appendFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOST_LOG_MAX_BYTES } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { createHostLogger, createHostLogSink } from './logger.js';

/** userData with one record logged, so `logs/host.log` exists; and a HOME beside it. */
function world() {
  const root = makeTempDir('bastion-host-log-');
  const userData = join(root, 'data');
  const home = join(root, 'home');
  mkdirSync(userData);
  mkdirSync(join(home, '.bashrc.d'), { recursive: true });
  writeFileSync(join(home, '.bashrc'), 'export PS1=x\n');
  const log = createHostLogger(createHostLogSink({ userData, stderr: 'none' }));
  log.info('host.first', {});
  const hostLog = join(userData, 'logs', 'host.log');
  // A forwarded sidecar field keeps `$(…)`: through a link it would run at the next shell start.
  const plant = () => log.warn('sidecar.planted', { code: '$(touch /tmp/bastion-pwned)' });
  return { userData, home, log, hostLog, plant };
}

describe('the host log (the sidecar can write userData)', () => {
  it('host.log swapped for a symlink to ~/.bashrc: the rc file keeps its bytes, the record goes to a fresh host.log, the link is set aside', () => {
    const { userData, home, hostLog, plant } = world();
    renameSync(hostLog, `${hostLog}.old`);
    symlinkSync(join(home, '.bashrc'), hostLog);
    plant();
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('export PS1=x\n');
    expect(readFileSync(hostLog, 'utf8')).toContain('sidecar.planted');
    expect(readdirSync(join(userData, 'logs')).some((name) => name.startsWith('host.log.suspect-'))).toBe(true);
  });

  it('`logs` swapped for a symlink to a directory a shell sources (~/.bashrc.d): nothing is written there, the record goes to a fresh logs/host.log', () => {
    const { userData, home, hostLog, plant } = world();
    renameSync(join(userData, 'logs'), join(userData, 'logs-old'));
    symlinkSync(join(home, '.bashrc.d'), join(userData, 'logs'));
    plant();
    expect(readdirSync(join(home, '.bashrc.d'))).toEqual([]);
    expect(readFileSync(hostLog, 'utf8')).toContain('sidecar.planted');
  });

  it('host.log made a hard link to another of the user’s files: that file keeps its bytes', () => {
    const { home, hostLog, plant } = world();
    const envrc = join(home, 'project.envrc');
    writeFileSync(envrc, 'use node\n');
    renameSync(hostLog, `${hostLog}.old`);
    linkSync(envrc, hostLog);
    plant();
    expect(readFileSync(envrc, 'utf8')).toBe('use node\n');
    expect(readFileSync(hostLog, 'utf8')).toContain('sidecar.planted');
    expect(existsSync(`${hostLog}.old`)).toBe(true);
  });
});

describe('the host log is bounded', () => {
  it('past HOST_LOG_MAX_BYTES host.log moves to host.log.1 (replacing the one before, a planted symlink there too) and the record starts a fresh 0600 host.log', () => {
    const { home, log, hostLog } = world();
    const full = Buffer.alloc(HOST_LOG_MAX_BYTES, 'a');
    appendFileSync(hostLog, full);
    symlinkSync(join(home, '.bashrc'), `${hostLog}.1`);
    log.info('host.after-first-bound', {});
    expect(lstatSync(`${hostLog}.1`).isFile()).toBe(true);
    expect(statSync(`${hostLog}.1`).size).toBeGreaterThan(HOST_LOG_MAX_BYTES);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('export PS1=x\n');
    const fresh = readFileSync(hostLog, 'utf8');
    expect(fresh.split('\n').filter(Boolean)).toHaveLength(1);
    expect(fresh).toContain('host.after-first-bound');
    expect(statSync(hostLog).mode & 0o777).toBe(0o600);

    appendFileSync(hostLog, full);
    log.info('host.after-second-bound', {});
    expect(readFileSync(`${hostLog}.1`, 'utf8')).toContain('host.after-first-bound');
    expect(readFileSync(hostLog, 'utf8')).toContain('host.after-second-bound');
    expect(readFileSync(hostLog, 'utf8')).not.toContain('host.after-first-bound');
  });

  it('a directory planted at host.log.1 is set aside and the log still rotates', () => {
    const { userData, log, hostLog } = world();
    appendFileSync(hostLog, Buffer.alloc(HOST_LOG_MAX_BYTES, 'a'));
    mkdirSync(`${hostLog}.1`);
    log.info('host.after-bound', {});
    expect(lstatSync(`${hostLog}.1`).isFile()).toBe(true);
    expect(readFileSync(hostLog, 'utf8')).toContain('host.after-bound');
    expect(readdirSync(join(userData, 'logs')).some((name) => name.startsWith('host.log.1.suspect-'))).toBe(true);
  });
});
