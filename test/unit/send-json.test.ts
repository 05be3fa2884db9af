import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { ViewMemo } from '../../src/http/json-memo.js';
import { sendJson, TEXT_WRITE_MAX } from '../../src/http/respond.js';

/** A response that keeps what `end` was given and lets the test say when the socket has it. */
class HeldResponse {
  readonly headers = new Map<string, unknown>();
  chunk: Buffer | string | undefined;
  /** Copied at `end`: what the client would have been sent. */
  sent = '';
  private written: (() => void) | undefined;

  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  setHeader(name: string, value: unknown): void {
    this.headers.set(name.toLowerCase(), value);
  }

  end(chunk: Buffer | string, callback?: () => void): void {
    this.chunk = chunk;
    this.sent = chunk.toString();
    this.written = callback;
  }

  /** The socket took the answer. */
  flush(): void {
    this.written?.();
  }
}

/** One record per id, kept, so the memo answers the same view for it every time. */
const records = new Map<string, { id: string }>();

function page(memo: ViewMemo, ids: string[]): unknown {
  const recordOf = (id: string) => records.get(id) ?? records.set(id, { id }).get(id) ?? { id };
  return { data: ids.map((id) => memo.from(recordOf(id), [id], () => ({ id, text: `post ${id} ✓` }))), hasMore: false, nextCursor: null };
}

function send(body: unknown): HeldResponse {
  const res = new HeldResponse();
  sendJson(res as unknown as Response, body);
  return res;
}

describe('sendJson', () => {
  it('sends a page of remembered views as its text the first time, and as the bytes of its JSON from then on', () => {
    const body = page(new ViewMemo(), ['a', 'b', 'c']);
    const first = send(body);
    expect(first.sent).toBe(JSON.stringify(body));
    expect(first.headers.get('content-length')).toBe(Buffer.byteLength(JSON.stringify(body)));
    const res = send(body);
    expect(Buffer.isBuffer(res.chunk)).toBe(true);
    expect(res.sent).toBe(JSON.stringify(body));
    expect(res.headers.get('content-length')).toBe(Buffer.byteLength(JSON.stringify(body)));
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('never writes a page into a buffer whose answer the socket does not have yet, and reuses it once it has', () => {
    const memo = new ViewMemo();
    // Each view once as text: from then on a page of them is copied into a buffer.
    for (const ids of [['a', 'b'], ['c', 'd'], ['e', 'f']]) send(page(memo, ids));
    const first = send(page(memo, ['a', 'b']));
    const second = send(page(memo, ['c', 'd']));
    // The first answer is still on its way: the second went into other memory.
    expect((second.chunk as Buffer).buffer).not.toBe((first.chunk as Buffer).buffer);
    expect((first.chunk as Buffer).toString()).toBe(first.sent);
    first.flush();
    const third = send(page(memo, ['e', 'f']));
    expect((third.chunk as Buffer).buffer).toBe((first.chunk as Buffer).buffer);
    expect(third.sent).toBe(JSON.stringify(page(memo, ['e', 'f'])));
    // The second, still unsent, is whole.
    expect((second.chunk as Buffer).toString()).toBe(second.sent);
    second.flush();
    third.flush();
  });

  it('hands a text up to the bound to Node as it is, and a longer one (a snapshot) as its bytes, each under its UTF-8 length', () => {
    // Two-byte and astral characters and a lone surrogate (escaped by JSON.stringify): a length in UTF-16 units would be wrong.
    const text = 'é✓😀\ud800';
    const short = { text };
    const long = { text: text.repeat(Math.ceil(TEXT_WRITE_MAX / text.length)) };
    expect(JSON.stringify(long).length).toBeGreaterThan(TEXT_WRITE_MAX);
    for (const [body, kind] of [
      [short, 'string'],
      [long, 'bytes'],
    ] as const) {
      const res = send(body);
      expect(typeof res.chunk === 'string' ? 'string' : Buffer.isBuffer(res.chunk) ? 'bytes' : typeof res.chunk).toBe(kind);
      expect(res.sent).toBe(JSON.stringify(body));
      expect(res.headers.get('content-length')).toBe(Buffer.byteLength(JSON.stringify(body)));
      expect(JSON.parse(res.sent)).toEqual(body);
    }
  });

  it('sends a body with no remembered view as the UTF-8 of its JSON', () => {
    const res = send({ error: { code: 'NOT_FOUND', message: 'nö' } });
    expect(res.sent).toBe('{"error":{"code":"NOT_FOUND","message":"nö"}}');
    expect(res.headers.get('content-length')).toBe(Buffer.byteLength('{"error":{"code":"NOT_FOUND","message":"nö"}}'));
  });
});
