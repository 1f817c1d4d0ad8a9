// Measurements shared by the two sides of the transport benchmark, written against a WHATWG
// fetch so the direct baseline and the transported run execute the same code.
export const BYTES = 100 * 1024 * 1024;
export const SSE_EVENTS = 10_000;
const TTFB_REQUESTS = 200;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const now = () => performance.timeOrigin + performance.now();

/**
 * Read one 100 MiB body: MiB/s, and the CPU time this process spent meanwhile (ms, user + system,
 * every thread). The benchmark alternates bodies of each side, so both see the same machine.
 */
export async function readBody(fetch, origin) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const response = await fetch(`${origin}/bytes`);
  let total = 0;
  for await (const chunk of response.body) total += chunk.byteLength;
  if (total !== BYTES) throw new Error(`short body: ${total}`);
  const rate = BYTES / (1024 * 1024) / ((performance.now() - start) / 1000);
  const used = process.cpuUsage(cpu);
  return { rate, cpuMs: (used.user + used.system) / 1000 };
}

/** p50 ms from calling fetch to holding the first body byte of a tiny response. */
export async function measureTtfb(fetch, origin) {
  const times = [];
  for (let run = 0; run < TTFB_REQUESTS + 20; run += 1) {
    const start = performance.now();
    const response = await fetch(`${origin}/small`);
    const reader = response.body.getReader();
    await reader.read();
    if (run >= 20) times.push(performance.now() - start);
    while (!(await reader.read()).done);
  }
  return median(times);
}

/** p50 ms between the server stamping an event and the reader parsing it (same machine clock). */
export async function measureSse(fetch, origin) {
  const latencies = [];
  const response = await fetch(`${origin}/sse`);
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const stamp = Number(event.slice(event.indexOf('"t":') + 4, event.indexOf('}')));
      latencies.push(now() - stamp);
    }
  }
  if (latencies.length !== SSE_EVENTS) throw new Error(`expected ${SSE_EVENTS} events, got ${latencies.length}`);
  return median(latencies);
}
