import { describe, expect, it } from 'vitest';
import { argumentsOf, argumentWarnings, environmentOf, readMcpServerForm } from './mcp-server-form.js';

const fields = { name: 'memory', command: 'node', args: '', env: '' };

describe('argumentsOf', () => {
  it('makes each line one argument exactly as written: spaces, quotes, $VARS and ~ are not a shell’s', () => {
    expect(argumentsOf('--root\n/path with spaces/x\n"quoted"\n$HOME\n~/a b\n--flag=a;b|c')).toEqual([
      '--root',
      '/path with spaces/x',
      '"quoted"',
      '$HOME',
      '~/a b',
      '--flag=a;b|c',
    ]);
  });

  it('leaves out empty lines and takes a pasted CRLF’s \\r off each line, nothing else', () => {
    expect(argumentsOf('a\r\n\r\n\nb \r\n')).toEqual(['a', 'b ']);
    expect(argumentsOf('')).toEqual([]);
  });
});

describe('argumentWarnings', () => {
  it('names an argument that starts or ends with a space, and none other', () => {
    expect(argumentWarnings(['ok', ' lead', 'trail ', 'in side'])).toEqual([
      'Argument 2 starts with a space, passed as it is.',
      'Argument 3 ends with a space, passed as it is.',
    ]);
  });
});

describe('environmentOf', () => {
  it('reads NAME=value lines, the value everything after the first = exactly', () => {
    expect(environmentOf('API_TOKEN=a=b c\nDEBUG=\n\nX_1= spaced ')).toEqual({
      ok: true,
      env: { API_TOKEN: 'a=b c', DEBUG: '', X_1: ' spaced ' },
    });
  });

  it('refuses a line without =, a name that is no variable name and a name given twice, naming the line', () => {
    expect(environmentOf('A=1\nno equals here')).toEqual({
      ok: false,
      message: 'Environment line 2 has no "=": write NAME=value.',
    });
    expect(environmentOf('api_token=x')).toEqual({
      ok: false,
      message: 'Environment line 1: "api_token" is not a variable name (upper-case letters, digits and "_").',
    });
    expect(environmentOf('A =x')).toMatchObject({ ok: false, message: expect.stringContaining('"A "') });
    expect(environmentOf('A=1\n\nA=2')).toEqual({ ok: false, message: 'Environment line 3: A is given twice.' });
  });

  it('takes __proto__ as no variable name, so no line can set the variables’ prototype', () => {
    expect(environmentOf('__proto__=x')).toMatchObject({ ok: false });
  });
});

describe('readMcpServerForm', () => {
  it('reads the form into the definition the host is sent: name and command trimmed, arguments as lines, env only when given', () => {
    expect(readMcpServerForm({ ...fields, name: ' memory ', command: ' node ', args: '/srv/m/index.js\n--x' })).toEqual(
      { ok: true, server: { name: 'memory', command: 'node', args: ['/srv/m/index.js', '--x'] } },
    );
    expect(readMcpServerForm({ ...fields, env: 'MEMORY_FILE_PATH=/tmp/m.json' })).toEqual({
      ok: true,
      server: { name: 'memory', command: 'node', args: [], env: { MEMORY_FILE_PATH: '/tmp/m.json' } },
    });
  });

  it('refuses a name the tool names cannot carry (upper case, "_", too long, empty) and a missing program, in words', () => {
    for (const name of ['Memory', 'my_server', 'a'.repeat(25), '', '-lead']) {
      expect(readMcpServerForm({ ...fields, name }), name).toMatchObject({
        ok: false,
        message: expect.stringContaining('lower-case letters, digits and "-"'),
      });
    }
    expect(readMcpServerForm({ ...fields, name: 'a'.repeat(24) }).ok).toBe(true);
    expect(readMcpServerForm({ ...fields, command: '  ' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('Give the program to run'),
    });
  });

  it('passes an environment line’s refusal through', () => {
    expect(readMcpServerForm({ ...fields, env: 'oops' })).toEqual({
      ok: false,
      message: 'Environment line 1 has no "=": write NAME=value.',
    });
  });
});
