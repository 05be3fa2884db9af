/**
 * The machine's ceiling: a bare node:http server answering every request with one
 * fixed JSON body (the mock's own `GET /v1/connections` answer, so the bytes on the
 * wire match), and with --created-body-file every POST with 201 and that body (the
 * mock's answer to a created post). A POST's body is read to its end and parsed, as
 * any server must before it can answer; nothing is routed, validated or stored. What
 * it costs is Node's own part of each exchange, which no server built on node:http
 * can go below.
 *
 *   node --import tsx bench/servers/ceiling.ts --port 4100 --body-file body.json [--created-body-file post.json]
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' }, 'body-file': { type: 'string' }, 'created-body-file': { type: 'string' } } });
const answer = (file: string) => {
  const body = readFileSync(file, null);
  return { body, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) } };
};
const read = answer(values['body-file'] ?? '');
const created = values['created-body-file'] === undefined ? undefined : answer(values['created-body-file']);

createServer((req, res) => {
  if (req.method !== 'POST' || created === undefined) {
    // Drain any request body so keep-alive connections stay usable.
    req.resume();
    res.writeHead(200, read.headers);
    res.end(read.body);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      // Not the bench's body: answered, so the server stays up for the rest of the run.
      res.writeHead(400).end();
      return;
    }
    res.writeHead(201, created.headers);
    res.end(created.body);
  });
}).listen(Number(values.port ?? 0), '127.0.0.1');
