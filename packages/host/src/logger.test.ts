import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
