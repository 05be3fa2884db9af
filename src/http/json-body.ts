import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler } from 'express';
import { jsonTextDeeperThan, MAX_JSON_DEPTH, nestedDeeperThan, tooDeepReason } from '../lib/nesting.js';
import { parseByteSize } from '../lib/byte-size.js';
import { ApiError } from '../lib/errors.js';

/**
 * express.json, and a body nested deeper than MAX_JSON_DEPTH refused at once with 400
 * VALIDATION_ERROR. JSON.parse itself reads any depth; what comes after it does not (the
 * validator, JSON.stringify when the world is stored or listed), so a body 5,000 deep once
 * became a record that answered 500 on every later read (decision 0026). Every JSON body the
 * server reads comes through here: the pipeline's and the scenario rules' alike.
 *
 * The body every client sends (`Content-Type: application/json`, a `Content-Length` within the
 * limit, no `Content-Encoding`, UTF-8) is read and parsed here directly: express.json's media type
 * matching, charset parsing, decoder and listeners were a twentieth of a created post's CPU
 * (decision 0058). Every other request, and every such body that JSON.parse does not take as
 * express.json would, goes through express.json itself, so what a body answers never changes.
 */
export function jsonBody(limit: string | number, depth = MAX_JSON_DEPTH): RequestHandler {
  // UTF-8's depth is read from the bytes before they are parsed: a walk of a parsed body of 15,000
  // keys cost more than its parse (decision 0057). Another charset's body is walked once parsed.
  const readFromBytes = new WeakMap<object, boolean>();
  const verify = (req: object, _res: unknown, bytes: Buffer, encoding: string) => {
    if (encoding === 'utf-8') readFromBytes.set(req, jsonTextDeeperThan(bytes, depth));
  };
  const json = express.json({ limit, type: ['application/json', 'application/*+json'], verify });
  // The forms --body-limit and the routes use (a number, or 512kb, 2mb…); any other is left to express.json.
  const limitBytes = typeof limit === 'number' ? limit : parseByteSize(limit);
  /** What every read body goes through, however it was read: `deeper` as read from its bytes, when they were UTF-8. */
  const checkDepth = (req: Request, error: unknown, deeper: boolean | undefined, next: NextFunction) => {
    if (error === undefined && (deeper ?? nestedDeeperThan(req.body, depth))) {
      // Nothing after the refusal (the journal, the dashboard's live view) may walk it either.
      req.body = {};
      return next(new ApiError(400, 'VALIDATION_ERROR', `${tooDeepReason('The body', depth)}.`, { param: 'body' }));
    }
    next(error);
  };
  return (req, res, next) => {
    const length = limitBytes === undefined ? undefined : plainJsonLength(req);
    if (length === undefined || length > (limitBytes as number)) {
      json(req, res, (error?: unknown) => checkDepth(req, error, readFromBytes.get(req), next));
      return;
    }
    readWhole(req, length, (error, body) => {
      if (error !== undefined || body === undefined) {
        req.body = undefined;
        return next(error);
      }
      const parsed = parsePlain(body);
      if (parsed !== NOT_PLAIN) {
        req.body = parsed;
        // parsePlain took it as UTF-8: its depth is read from the bytes, as express.json's verify does.
        return checkDepth(req, undefined, jsonTextDeeperThan(body, depth), next);
      }
      // Not the plain case after all (not UTF-8, not an object or array, not JSON): express.json reads the same bytes and answers as it always did.
      const replay = replayOf(req, body);
      json(replay, res, (replayError?: unknown) => {
        req.body = replay.body;
        checkDepth(req, replayError, readFromBytes.get(replay), next);
      });
    });
  };
}

/**
 * The declared length of a request express.json would read as plain UTF-8 JSON without decoding
 * or inflating anything: still unread, `application/json` (with `charset=utf-8` at most), no
 * `Content-Encoding`, no `Transfer-Encoding`, and a `Content-Length`. Undefined for any other.
 */
function plainJsonLength(req: IncomingMessage): number | undefined {
  const headers = req.headers;
  const type = headers['content-type'];
  if (type === undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const lower = type.length === 16 || type.length === 31 ? type.toLowerCase() : '';
  if (lower !== 'application/json' && lower !== 'application/json; charset=utf-8') return undefined;
  const declared = headers['content-length'];
  if (declared === undefined || !/^\d{1,15}$/.test(declared)) return undefined;
  // As on-finished judges a request express.json would skip: already read, or its connection closed.
  const socket = req.socket as IncomingMessage['socket'] | null;
  if ((req as { upgrade?: boolean }).upgrade === true || !socket?.readable || (req.complete && !req.readable)) return undefined;
  return Number(declared);
}

/**
 * Reads the request's bytes to the end, O(length). A request cut off on the way is refused as
 * raw-body refuses it inside express.json (400 `request aborted`); the client is gone by then,
 * and the journal records the same answer.
 */
function readWhole(req: IncomingMessage, length: number, done: (error: Error | undefined, body?: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let finished = false;
  const finish = (error: Error | undefined, body?: Buffer) => {
    if (finished) return;
    finished = true;
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('aborted', onAborted);
    req.removeListener('error', onError);
    done(error, body);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  };
  const onEnd = () => finish(undefined, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
  const onAborted = () =>
    finish(Object.assign(new Error('request aborted'), { status: 400, statusCode: 400, expose: true, code: 'ECONNABORTED', expected: length, length, received, type: 'request.aborted' }));
  const onError = (error: Error) => finish(Object.assign(error, { status: 400, statusCode: 400, expose: true }));
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onAborted);
  req.on('error', onError);
}

/** Marks a body this module could not take as the plain case. */
const NOT_PLAIN = Symbol('not plain');

/**
 * The body as express.json parses it, when that is plain: UTF-8 (its decoder drops a leading byte
 * order mark), empty (`{}`), or an object or array that JSON.parse takes. Anything else is NOT_PLAIN.
 */
function parsePlain(body: Buffer): unknown {
  if (body.length === 0) return {};
  if (!isUtf8(body)) return NOT_PLAIN;
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  const first = text.charCodeAt(0);
  if (first !== 0x7b && first !== 0x5b) return NOT_PLAIN;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_PLAIN;
  }
}

/**
 * A stand-in request holding the bytes already read, for express.json to read again: its error
 * (a body that is not JSON, in the very words it always used) or its body is the answer.
 */
function replayOf(req: Request, body: Buffer): Request {
  return Object.assign(Readable.from([body], { objectMode: false }), { headers: req.headers, method: req.method, url: req.url, body: undefined }) as unknown as Request;
}
