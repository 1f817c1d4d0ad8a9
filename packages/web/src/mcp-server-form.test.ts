import { describe, expect, it } from 'vitest';
import {
  COMMAND_MAX_ARGS,
  COMMAND_MAX_PATH_CHARS,
  HOST_IPC_MAX_BODY_BYTES,
  MCP_ENV_VALUE_MAX_CHARS,
  MCP_MAX_ENV_VARS,
} from '@bastion/protocol';
import { argumentsOf, argumentWarnings, environmentOf, readMcpServerForm } from './mcp-server-form.js';

const fields = { name: 'memory', command: 'node', args: '', env: '' };
const WS = '/home/ada/project';

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
      message: 'Environment line 2 has no "=": write VARIABLE=value.',
    });
    expect(environmentOf('api_token=x')).toEqual({
      ok: false,
      message: 'Environment line 1: "api_token" is not a variable name (upper-case letters, digits and "_", up to 64).',
    });
    expect(environmentOf('A =x')).toMatchObject({ ok: false, message: expect.stringContaining('"A "') });
    expect(environmentOf('A=1\n\nA=2')).toEqual({ ok: false, message: 'Environment line 3: A is given twice.' });
  });

  it('refuses the variables Bastion sets itself, too many variables and a value over its bound, as the host’s schema does', () => {
    for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TERM', 'PWD', 'BASTION_MCP_DATA'])
      expect(environmentOf(`A=1\n${name}=x`), name).toEqual({
        ok: false,
        message: `Environment line 2: ${name} is set by Bastion (PATH, HOME, TMPDIR, LANG, TERM, PWD, BASTION_MCP_DATA are).`,
      });
    const many = Array.from({ length: MCP_MAX_ENV_VARS + 1 }, (_, index) => `V${index}=x`).join('\n');
    expect(environmentOf(many)).toEqual({ ok: false, message: `At most ${MCP_MAX_ENV_VARS} environment variables.` });
    expect(environmentOf(`V=${'x'.repeat(MCP_ENV_VALUE_MAX_CHARS)}`).ok).toBe(true);
    expect(environmentOf(`V=${'x'.repeat(MCP_ENV_VALUE_MAX_CHARS + 1)}`)).toMatchObject({ ok: false });
    expect(environmentOf(`${'A'.repeat(64)}=x`).ok).toBe(true);
    expect(environmentOf(`${'A'.repeat(65)}=x`)).toMatchObject({ ok: false });
  });

  it('takes __proto__ as no variable name, so no line can set the variables’ prototype', () => {
    expect(environmentOf('__proto__=x')).toMatchObject({ ok: false });
  });
});

describe('readMcpServerForm', () => {
  it('reads the form into the definition the host is sent: name and command trimmed, arguments as lines, env only when given', () => {
    expect(
      readMcpServerForm({ ...fields, name: ' memory ', command: ' node ', args: '/srv/m/index.js\n--x' }, WS),
    ).toEqual({ ok: true, server: { name: 'memory', command: 'node', args: ['/srv/m/index.js', '--x'] } });
    expect(readMcpServerForm({ ...fields, env: 'MEMORY_FILE_PATH=/tmp/m.json' }, WS)).toEqual({
      ok: true,
      server: { name: 'memory', command: 'node', args: [], env: { MEMORY_FILE_PATH: '/tmp/m.json' } },
    });
  });

  it('refuses a name the tool names cannot carry (upper case, "_", too long, empty) and a missing program, in words', () => {
    for (const name of ['Memory', 'my_server', 'a'.repeat(25), '', '-lead']) {
      expect(readMcpServerForm({ ...fields, name }, WS), name).toMatchObject({
        ok: false,
        message: expect.stringContaining('lower-case letters, digits and "-"'),
      });
    }
    expect(readMcpServerForm({ ...fields, name: 'a'.repeat(24) }, WS).ok).toBe(true);
    expect(readMcpServerForm({ ...fields, command: '  ' }, WS)).toMatchObject({
      ok: false,
      message: expect.stringContaining('Give the program to run'),
    });
  });

  it('refuses too many arguments, a program over its bound and a definition the host IPC body cannot hold, before sending', () => {
    const args = (count: number) => Array.from({ length: count }, (_, index) => `a${index}`).join('\n');
    expect(readMcpServerForm({ ...fields, args: args(COMMAND_MAX_ARGS) }, WS).ok).toBe(true);
    expect(readMcpServerForm({ ...fields, args: args(COMMAND_MAX_ARGS + 1) }, WS)).toEqual({
      ok: false,
      message: `At most ${COMMAND_MAX_ARGS} arguments.`,
    });
    expect(readMcpServerForm({ ...fields, command: 'x'.repeat(COMMAND_MAX_PATH_CHARS + 1) }, WS)).toMatchObject({
      ok: false,
    });
    // Exactly what the bridge sends, measured in UTF-8 bytes: a multi-byte argument counts its bytes.
    const room =
      HOST_IPC_MAX_BODY_BYTES -
      JSON.stringify({ workspace: WS, server: { name: 'memory', command: 'node', args: [''] } }).length;
    expect(readMcpServerForm({ ...fields, args: 'x'.repeat(room) }, WS).ok).toBe(true);
    expect(readMcpServerForm({ ...fields, args: 'x'.repeat(room + 1) }, WS)).toMatchObject({
      ok: false,
      message: expect.stringContaining('bastion mcp add'),
    });
    expect(readMcpServerForm({ ...fields, args: 'é'.repeat(Math.ceil(room / 2) + 1) }, WS)).toMatchObject({
      ok: false,
    });
  });

  it('passes an environment line’s refusal through', () => {
    expect(readMcpServerForm({ ...fields, env: 'oops' }, WS)).toEqual({
      ok: false,
      message: 'Environment line 1 has no "=": write VARIABLE=value.',
    });
  });
});
