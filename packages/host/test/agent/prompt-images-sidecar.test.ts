/**
 * An image attached to a prompt on the real host and sandboxed sidecar: the whole body (3.5 MiB of
 * image, over the 1 MiB other routes take) through the daemon's perimeter, then to a custom
 * endpoint whose definition says its models take images through the host-routed transport and its
 * egress guard, byte for byte as an `image_url` data URL; the largest body the route takes (4 images
 * of 3.75 MiB) too, the oldest named in words past 12 MiB. Redefined without images, the endpoint's
 * model refuses the next one with nothing stored. No request leaves loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_MAX_IMAGES, IMAGE_MAX_BYTES, type Message, type Session } from '@bastion/protocol';
import { scriptedWorlds } from '../support/scripted-agent.js';
import { seededRandom } from '../support/seeded-random.js';

const worlds = scriptedWorlds('sk-images-test-key');
afterEach(() => worlds.stop());

/** A PNG signature, then seeded random bytes (as compressed image data reads): `size` bytes in all. */
function randomPng(size: number, seed = 0x5eed): string {
  const random = seededRandom(seed);
  const bytes = Buffer.alloc(size);
  for (let at = 0; at < size; at += 4) bytes.writeUInt32LE(Math.floor(random() * 2 ** 32), at);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return bytes.toString('base64');
}

describe('images in a prompt, through the sidecar and the transport', () => {
  it('reach an endpoint whose models take images as an image_url data URL, byte for byte, stored once and in no log; redefined without images, the next one is refused with nothing stored', async () => {
    const { agent, host, endpoint } = await worlds.start(
      [{ kind: 'text', pieces: ['I see it.'] }],
      {},
      { images: true },
    );
    const data = randomPng(3_500_000);
    const outcome = await agent.run({ message: 'what is on the screen?', images: [{ data, name: 'screen.png' }] });
    expect(outcome.status).toBe(202);
    expect(outcome.events.at(-1)?.type).toBe('run-finished');

    const user = endpoint.seen[0]?.body.messages?.find((message) => message.role === 'user');
    expect(user?.content).toEqual([
      { type: 'text', text: 'what is on the screen?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
    ]);
    const stored = await host.client.request<{ messages: Message[] }>('GET', `/sessions/${agent.session.id}/messages`);
    expect(stored.body.messages[0]?.parts[1]).toMatchObject({ type: 'image', bytes: 3_500_000, name: 'screen.png' });
    expect(JSON.stringify(stored.body)).not.toContain(data.slice(1000, 1100));
    expect(JSON.stringify(host.records)).not.toContain(data.slice(1000, 1100));

    const redefined = await host.client.request('POST', '/providers/endpoints/set', {
      id: 'local',
      base_url: endpoint.baseUrl,
    });
    expect(redefined.status).toBe(200);
    const refused = await agent.run({ message: 'and this?', images: [{ data: randomPng(100) }] });
    expect([refused.status, (refused.body as { code?: string }).code]).toEqual([400, 'IMAGES_NOT_SUPPORTED']);
    const after = await host.client.request<{ messages: Message[] }>('GET', `/sessions/${agent.session.id}/messages`);
    expect(after.body.messages).toHaveLength(stored.body.messages.length);
    const session = await host.client.request<Session>('GET', `/sessions/${agent.session.id}`);
    expect(session.body.last_run?.id).toBe(outcome.events[0]?.run_id);
    expect(endpoint.seen).toHaveLength(1);
  });
  it('take the largest body the route allows (4 images of 3.75 MiB): the endpoint gets the newest three, 12 MiB, and the oldest in words', async () => {
    const { agent, endpoint } = await worlds.start([{ kind: 'text', pieces: ['Four.'] }], {}, { images: true });
    const images = Array.from({ length: AGENT_MAX_IMAGES }, (_, index) => ({
      data: randomPng(IMAGE_MAX_BYTES, index + 1),
      name: `shot-${index + 1}.png`,
    }));
    const outcome = await agent.run({ message: 'compare these', images });
    expect(outcome.status).toBe(202);
    expect(outcome.events.at(-1)?.type).toBe('run-finished');
    const user = endpoint.seen[0]?.body.messages?.find((message) => message.role === 'user');
    expect(user?.content).toEqual([
      { type: 'text', text: 'compare these' },
      {
        type: 'text',
        text: `[An image "shot-1.png" (PNG, ${IMAGE_MAX_BYTES} bytes) the user attached is not shown: the conversation holds more images than one request carries.]`,
      },
      ...images
        .slice(1)
        .map((image) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } })),
    ]);
  });
});
