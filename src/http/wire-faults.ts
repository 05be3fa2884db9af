import type { Request, Response } from 'express';
import type { Containment } from '../lib/containment.js';

/*
 * What a network does to an answer on its way: sends it slowly, cuts it short, or
 * resets the connection in the middle of it. A scenario rule asks for these
 * (`drip`, `truncated`, `reset: { afterBytes }`); the responder applies them to
 * whatever answer goes out, so a client meets them exactly as on a real network:
 * a status and headers promising the whole body (its Content-Length), then less.
 */

/** How one answer is to go out on the wire. */
export interface WireFault {
  /** Send the body `chunkBytes` at a time, `intervalMs` real milliseconds apart. */
  drip?: { chunkBytes: number; intervalMs: number };
  /** Stop after this many bytes of body (`half`: half of it), then close or reset. */
  cut?: { afterBytes: number | 'half'; how: 'close' | 'reset' };
}

/** Real milliseconds between the last bytes sent and a reset mid-body. */
const RESET_DELAY_MS = 20;

/** The longest a drip waits in all, in real time; the rest of the body then goes at once. */
export const MAX_DRIP_MS = 30_000;

/** The pieces of `body` a fault sends, in order: the part before any cut, dripped or whole. */
export function wirePieces(body: Buffer, fault: WireFault): { pieces: Buffer[]; cutAt: number | undefined } {
  const cutAt = fault.cut === undefined ? undefined : Math.min(body.length, fault.cut.afterBytes === 'half' ? Math.floor(body.length / 2) : fault.cut.afterBytes);
  const sent = body.subarray(0, cutAt ?? body.length);
  if (!fault.drip) return { pieces: sent.length > 0 ? [sent] : [], cutAt };
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < sent.length; offset += fault.drip.chunkBytes) pieces.push(sent.subarray(offset, offset + fault.drip.chunkBytes));
  return { pieces, cutAt };
}

/**
 * Writes the answer whose status and headers are already on `res`, its body under
 * the fault. The status and headers go at once, with the whole body's length; then
 * the pieces, `intervalMs` apart when dripped (at most MAX_DRIP_MS in all); then the
 * end of the answer, or, for a cut, a close (FIN) or a reset (RST) of the connection.
 */
export function writeWithFault(req: Request, res: Response, body: Buffer, fault: WireFault, containment: Containment | undefined): void {
  const { pieces, cutAt } = wirePieces(body, fault);
  res.setHeader('Content-Length', String(body.length));
  res.flushHeaders();
  let left = true;
  res.on('close', () => {
    left = false;
  });
  const interval = fault.drip?.intervalMs ?? 0;
  const startedAt = performance.now();

  // Past the first piece each step runs from a write's callback or a timer, with nobody above
  // it: a failure there is contained at the timer boundary, and the answer it left half-sent is cut.
  const contained = (fn: (i: number) => void, i: number): void => {
    if (!containment) return fn(i);
    if (!containment.call('timer', fn, i, undefined)) res.destroy();
  };

  const finish = () => {
    if (!left) return;
    if (cutAt === undefined) {
      res.end();
      return;
    }
    // Everything written has reached the socket: now end it as the network would. A reset
    // waits a moment, so the bytes before it reach the client first: a RST that overtakes
    // unread data can reach a client as a plain end of stream instead of ECONNRESET.
    const socket = req.socket;
    if (fault.cut?.how === 'reset') setTimeout(contained, RESET_DELAY_MS, () => socket.resetAndDestroy(), 0).unref();
    else socket.destroySoon();
  };

  // Each piece is written once the one before it was handed to the socket (and, dripping,
  // `interval` later); after the last, the answer ends or the connection is cut.
  const write = (i: number): void => {
    if (left) res.write(pieces[i] as Buffer, () => contained(step, i + 1));
  };
  const step = (i: number): void => {
    if (!left) return;
    if (i >= pieces.length) return finish();
    const dripping = interval > 0 && i > 0 && performance.now() - startedAt < MAX_DRIP_MS;
    if (dripping) setTimeout(contained, interval, write, i).unref();
    else write(i);
  };
  step(0);
}
