/**
 * The machine's ceiling: a bare node:http server answering every request with one
 * fixed JSON body (the mock's own `GET /v1/connections` answer, so the bytes on the
 * wire match). Nothing is parsed, routed or validated.
 *
 *   node --import tsx bench/servers/ceiling.ts --port 4100 --body-file body.json
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' }, 'body-file': { type: 'string' } } });
const body = readFileSync(values['body-file'] ?? '', null);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };

createServer((req, res) => {
  // Drain any request body so keep-alive connections stay usable.
  req.resume();
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(values.port ?? 0), '127.0.0.1');
