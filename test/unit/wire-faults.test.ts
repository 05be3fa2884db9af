import { describe, expect, it } from 'vitest';
import { wirePieces } from '../../src/http/wire-faults.js';
import { faultReply, wireFaultOf } from '../../src/scenarios/fault-answers.js';

const body = Buffer.from('0123456789');
const text = (pieces: Buffer[]) => pieces.map((piece) => piece.toString());

describe('the pieces a wire fault sends', () => {
  it.each([
    ['a drip of 4', { drip: { chunkBytes: 4, intervalMs: 1 } }, ['0123', '4567', '89'], undefined],
    ['a cut in half', { cut: { afterBytes: 'half' as const, how: 'close' as const } }, ['01234'], 5],
    ['a cut after 3', { cut: { afterBytes: 3, how: 'reset' as const } }, ['012'], 3],
    ['a cut past the end', { cut: { afterBytes: 99, how: 'close' as const } }, ['0123456789'], 10],
    ['a cut at 0', { cut: { afterBytes: 0, how: 'reset' as const } }, [], 0],
    ['a drip cut after 7', { drip: { chunkBytes: 3, intervalMs: 1 }, cut: { afterBytes: 7, how: 'close' as const } }, ['012', '345', '6'], 7],
  ])('%s', (_case, fault, pieces, cutAt) => {
    const sent = wirePieces(body, fault);
    expect(text(sent.pieces)).toEqual(pieces);
    expect(sent.cutAt).toBe(cutAt);
  });
});

describe("a rule's wire fault", () => {
  it.each([
    ['nothing', {}, undefined],
    ['truncated: true', { truncated: {} }, { cut: { afterBytes: 'half', how: 'close' } }],
    ['reset after 5', { reset: { afterBytes: 5 } }, { cut: { afterBytes: 5, how: 'reset' } }],
    ['reset with no answer', { reset: true as const }, undefined],
    ['a drip and a cut', { drip: { chunkBytes: 2, intervalMs: 3 }, truncated: { afterBytes: 4 } }, { drip: { chunkBytes: 2, intervalMs: 3 }, cut: { afterBytes: 4, how: 'close' } }],
  ])('%s', (_case, then, expected) => {
    expect(wireFaultOf(then)).toEqual(expected);
  });
});

describe('the answer of a fault', () => {
  it('is an empty body with only the headers asked for', () => {
    expect(faultReply({ status: 503, body: 'empty', retryAfter: 7 }, 'r')).toEqual({ status: 503, headers: { 'Retry-After': '7' }, offContract: true });
  });

  it("keeps a Retry-After the rule's headers give", () => {
    expect(faultReply({ status: 502, body: 'json', retryAfter: 7, headers: { 'retry-after': '9' } }, 'r').headers).toEqual({ 'retry-after': '9' });
  });
});
