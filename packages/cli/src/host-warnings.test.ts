import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '@bastion/protocol';
import { hostWarningLine } from './host-warnings.js';

const HOME = '/home/ada/.bastion';

const record = (event: string, fields: LogRecord['fields'] = {}, level: LogRecord['level'] = 'warn'): LogRecord => ({
  time: '2026-01-01T00:00:00.000Z',
  level,
  source: 'host',
  event,
  fields,
});

/** Every event name the host and the daemon log at warn or error level, read from their sources. */
function loggedWarningEvents(): string[] {
  const events = new Set<string>();
  for (const pkg of ['host', 'daemon']) {
    const root = fileURLToPath(new URL(`../../${pkg}/src`, import.meta.url));
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const match of text.matchAll(/\.(?:warn|error)\(\s*'([a-z][a-z0-9_.-]*)'/g)) events.add(match[1] ?? '');
    }
  }
  return [...events].sort();
}

describe('hostWarningLine', () => {
  it('says a known event as a sentence with what to do, not as its event name and fields', () => {
    const line = hostWarningLine(record('mcp.failed', { server: 'docs', reason: 'stopped' }), HOME);
    expect(line).toBe('bastion: warning: MCP server docs stopped; bastion mcp restart docs starts it again\n');
  });

  it('says an error as an error', () => {
    expect(hostWarningLine(record('sidecar.start-failed', { code: 'EACCES' }, 'error'), HOME)).toBe(
      'bastion: error: the agent process failed to start (EACCES)\n',
    );
  });

  it('says an event it has no sentence for readably, naming the event, its code and the log that holds its record', () => {
    expect(hostWarningLine(record('brand.new-thing', { code: 'X_FAILED', pid: 4 }), HOME)).toBe(
      `bastion: warning: Bastion noted brand.new-thing (X_FAILED); its record is in ${HOME}/logs/host.log\n`,
    );
  });

  it('makes a field from the sandboxed side inert: no escape sequence reaches the terminal', () => {
    const line = hostWarningLine(record('mcp.relist-failed', { server: 'x\u001b]0;owned\u0007' }), HOME);
    expect(line).not.toContain('\u001b');
    expect(line).not.toContain('\u0007');
    expect(line.split('\n')).toHaveLength(2);
  });

  it('has a sentence for every event the host and the daemon log as a warning or an error', () => {
    const events = loggedWarningEvents();
    expect(events.length).toBeGreaterThan(40);
    expect(events.filter((event) => hostWarningLine(record(event), HOME).includes('Bastion noted'))).toEqual([]);
  });
});
