import { describe, expect, it } from 'vitest';
import { endpointIdSchema } from '@bastion/protocol';
import { endpointIdFor } from './endpoint-consent.js';

describe('endpointIdFor (the id --endpoint URL gets)', () => {
  it('reads host, port and path from the URL, the same for the same URL', () => {
    expect(endpointIdFor('http://127.0.0.1:8080/v1')).toBe('endpoint-127-0-0-1-8080-v1');
    expect(endpointIdFor('http://127.0.0.1:8080/v1')).toBe('endpoint-127-0-0-1-8080-v1');
    expect(endpointIdFor('http://localhost:11434/v1')).toBe('endpoint-localhost-11434-v1');
    expect(endpointIdFor('http://localhost/v1')).toBe('endpoint-localhost-v1');
  });

  it('gives a URL too long for a readable id, and an IPv6 one, a valid id ending in a hash of the URL, each its own', () => {
    const long = endpointIdFor('http://my-gpu-box.localhost:11434/api/openai/v1');
    const other = endpointIdFor('http://my-gpu-box.localhost:11434/api/openai/v2');
    expect(long).toMatch(/^endpoint-my-gpu-box-loc-[0-9a-f]{8}$/);
    expect(other).not.toBe(long);
    for (const id of [long, other, endpointIdFor('http://[::1]:8080/v1')])
      expect(endpointIdSchema.safeParse(id).success).toBe(true);
  });

  it('never takes an id another URL’s definition holds (it would be sent that endpoint’s key)', () => {
    const taken = new Set(['endpoint-127-0-0-1-8080-v1']);
    const id = endpointIdFor('https://127.0.0.1:8080/v1', taken);
    expect(id).toMatch(/^endpoint-127-0-0-1-8080-[0-9a-f]{8}$/);
    expect(endpointIdSchema.safeParse(id).success).toBe(true);
  });
});
