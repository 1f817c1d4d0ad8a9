import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser.js';

describe('SseParser', () => {
  it('parses events split across arbitrary chunk boundaries', () => {
    const text =
      ': hello\n\nid: 1\nevent: text-delta\ndata: {"a":1}\n\nid: 2\r\nevent: run-finished\r\ndata: x\r\ndata: y\r\n\r\n';
    for (let size = 1; size <= text.length; size += 1) {
      const parser = new SseParser();
      const out = [];
      for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
      expect(out).toEqual([
        { id: '1', event: 'text-delta', data: '{"a":1}' },
        { id: '2', event: 'run-finished', data: 'x\ny' },
      ]);
    }
  });

  it('ignores comments and keeps the last id for events without one', () => {
    const parser = new SseParser();
    expect(parser.push('id: 5\ndata: a\n\n: keep-alive\n\ndata: b\n\n')).toEqual([
      { id: '5', event: 'message', data: 'a' },
      { id: '5', event: 'message', data: 'b' },
    ]);
  });
});
