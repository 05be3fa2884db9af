import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../../src/http/json-body.js';
import { ApiError } from '../../src/lib/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeepReason } from '../../src/lib/nesting.js';

/** jsonBody as it was before it read plain bodies itself: express.json and the depth check. What it answers is what jsonBody must answer. */
function expressJsonBody(limit: string | number): RequestHandler {
  const json = express.json({ limit, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => {
    json(req, res, (error?: unknown) => {
      if (error === undefined && nestedDeeperThan(req.body, MAX_JSON_DEPTH)) {
        req.body = {};
        return next(new ApiError(400, 'VALIDATION_ERROR', `${tooDeepReason('The body', MAX_JSON_DEPTH)}.`, { param: 'body' }));
      }
      next(error);
    });
  };
}

const LIMIT = '1kb';

/** An app answering what its body step made of the request: the body, or the error's status, type and message. */
function app(step: RequestHandler): express.Express {
  const served = express();
  served.post('/', step, (req, res) => {
    res.json({ body: req.body === undefined ? '(undefined)' : (req.body as unknown) });
  });
  const onError: ErrorRequestHandler = (error: { status?: number; type?: string; message?: string; code?: string }, _req, res, _next) => {
    res.status(error.status ?? 500).json({ error: { type: error.type, message: error.message, code: error.code } });
  };
  served.use(onError);
  return served;
}

let ours: Server;
let theirs: Server;

beforeAll(async () => {
  ours = createServer(app(jsonBody(LIMIT)));
  theirs = createServer(app(expressJsonBody(LIMIT)));
  ours.listen(0, '127.0.0.1');
  theirs.listen(0, '127.0.0.1');
  await Promise.all([once(ours, 'listening'), once(theirs, 'listening')]);
});

afterAll(() => {
  ours.close();
  theirs.close();
});

interface Answer {
  status: number;
  text: string;
}

function send(server: Server, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const plain = { 'content-type': 'application/json' };
const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;

describe('jsonBody', () => {
  it.each<[string, Buffer, Record<string, string>]>([
    ['an object', Buffer.from('{"text":"Fresh beans","n":1}'), plain],
    ['an array', Buffer.from('[1,2,3]'), plain],
    ['charset=utf-8, any case', Buffer.from('{"a":"é 😀"}'), { 'content-type': 'Application/JSON; Charset=UTF-8' }],
    ['an empty body', Buffer.alloc(0), plain],
    ['a byte order mark before the object', Buffer.from('\ufeff{"a":1}'), plain],
    ['a byte order mark alone', Buffer.from('\ufeff'), plain],
    ['white space before the object', Buffer.from(' \n{"a":1}'), plain],
    ['white space alone', Buffer.from('   '), plain],
    ['a string', Buffer.from('"text"'), plain],
    ['a number', Buffer.from('12'), plain],
    ['null', Buffer.from('null'), plain],
    ['cut off JSON', Buffer.from('{"a":'), plain],
    ['text after the object', Buffer.from('{"a":1}x'), plain],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), plain],
    ['exactly the limit', Buffer.from(`{"a":"${'x'.repeat(1024 - 8)}"}`), plain],
    ['over the limit', Buffer.from(`{"a":"${'x'.repeat(1024)}"}`), plain],
    ['nested too deep', Buffer.from(deep), plain],
    ['hostile strings: an escaped lone surrogate, NUL, direction marks and brackets deeper than the limit inside a string', Buffer.from(`{"a":"\\ud800\\u0000\u202e\u0301${'['.repeat(MAX_JSON_DEPTH + 5)}"}`), plain],
    ['an escaped quote before brackets inside a string', Buffer.from(`{"a":"\\"${'{'.repeat(MAX_JSON_DEPTH + 5)}"}`), plain],
    ['a +json type', Buffer.from('{"a":1}'), { 'content-type': 'application/merge-patch+json' }],
    ['another type', Buffer.from('{"a":1}'), { 'content-type': 'text/plain' }],
    ['another charset', Buffer.from('{"a":1}'), { 'content-type': 'application/json; charset=latin1' }],
    ['a content encoding it does not know', Buffer.from('{"a":1}'), { 'content-type': 'application/json', 'content-encoding': 'compress' }],
  ])('%s: the answer express.json gave', async (_name, body, headers) => {
    const [mine, reference] = await Promise.all([send(ours, body, headers), send(theirs, body, headers)]);
    expect(mine).toEqual(reference);
  });

  it('a body sent in many small chunks: the answer express.json gave', async () => {
    const body = Buffer.from(JSON.stringify({ text: 'x'.repeat(600), items: [1, 2, 3] }));
    const chunked = async (server: Server) => {
      const { port } = server.address() as AddressInfo;
      return new Promise<Answer>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { ...plain, 'content-length': String(body.length) } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        for (let at = 0; at < body.length; at += 7) req.write(body.subarray(at, at + 7));
        req.end();
      });
    };
    expect(await chunked(ours)).toEqual(await chunked(theirs));
  });

  it('a request cut off inside its body is refused as express.json refused it, and the server goes on', async () => {
    let seen: unknown;
    const served = express();
    served.post('/', jsonBody(LIMIT), (_req, res) => res.end());
    served.use(((error: { status?: number; type?: string; message?: string }, _req, res, _next) => {
      seen = { status: error.status, type: error.type, message: error.message };
      res.status(400).end();
    }) as ErrorRequestHandler);
    const server = createServer(served).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await expect.poll(() => seen).toEqual({ status: 400, type: 'request.aborted', message: 'request aborted' });
    expect((await send(ours, Buffer.from('{"a":1}'), plain)).status).toBe(200);
    server.close();
  });
});
