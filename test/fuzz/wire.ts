import { request as httpRequest, type Agent } from 'node:http';
import type { OperationModel } from './operations.js';
import type { FuzzRequest, PathValue } from './requests.js';
import { defineOwn, IdRef } from './schema-arbitraries.js';

/** Ids to fill IdRefs with: the property's own workspace and another one. */
export interface IdPools {
  own: readonly string[];
  foreign: readonly string[];
}

/** A request exactly as it goes on the wire, plus what the oracle needs to judge it. */
export interface WireRequest {
  method: string;
  /** Path and query, as sent. */
  target: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Path parameters as the server decodes them. */
  pathParams: Record<string, string>;
  /** Path parameters that carry an id of the other workspace (and of no own record). */
  foreignPathParams: string[];
  /** The JSON value sent, when the body is JSON from the generator. */
  json?: unknown;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function resolveId(ref: IdRef, pools: IdPools): string {
  const pool = pools[ref.pool];
  return pool.length === 0 ? `no-${ref.pool}-id` : (pool[ref.index % pool.length] as string);
}

/** A copy of `value` with every IdRef replaced by a real id (the generated value is left alone). */
export function resolveIds(value: unknown, pools: IdPools): unknown {
  if (value instanceof IdRef) return resolveId(value, pools);
  if (Array.isArray(value)) return value.map((item) => resolveIds(item, pools));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) defineOwn(copy, key, resolveIds((value as Record<string, unknown>)[key], pools));
    return copy;
  }
  return value;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Percent-encodes the UTF-8 bytes of `text`. Unlike encodeURIComponent it does not
 * throw on a lone surrogate: like any client, it sends U+FFFD in its place.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function encodeQueryValue(value: unknown, pools: IdPools): string[] {
  const resolved = resolveIds(value, pools);
  if (Array.isArray(resolved)) return resolved.map((item) => String(item));
  return [typeof resolved === 'object' && resolved !== null ? JSON.stringify(resolved) : String(resolved)];
}

/** Fills in ids and keys and lays the request out as bytes. */
export function toWire(op: OperationModel, request: FuzzRequest, pools: IdPools, apiKey: string): WireRequest {
  const pathParams: Record<string, string> = {};
  const foreignPathParams: string[] = [];
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = request.pathParams[name] as PathValue;
    if (typeof value === 'object' && !(value instanceof IdRef)) {
      pathParams[name] = safeDecode(value.raw);
      return value.raw;
    }
    const text = value instanceof IdRef ? resolveId(value, pools) : value;
    if (value instanceof IdRef && value.pool === 'foreign' && !pools.own.includes(text)) foreignPathParams.push(name);
    pathParams[name] = text;
    return percentEncode(text);
  });
  const pairs: string[] = [];
  for (const [name, value] of request.query) {
    for (const text of encodeQueryValue(value, pools)) pairs.push(`${percentEncode(name)}=${percentEncode(text)}`);
  }
  if (request.rawQuery !== '') pairs.push(request.rawQuery);
  const target = pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;

  const headers: Record<string, string> = { ...request.headers };
  switch (request.auth) {
    case 'x-api-key':
      headers['x-api-key'] = apiKey;
      break;
    case 'bearer':
      headers.Authorization = `Bearer ${apiKey}`;
      break;
    case 'unknown-key':
      headers['x-api-key'] = 'sgw_test_nobody_has_this_key';
      break;
    case 'wrong-key-first':
      // x-api-key wins over Authorization, so the right key in the second header does not help.
      headers['x-api-key'] = 'sgw_test_nobody_has_this_key';
      headers.Authorization = `Bearer ${apiKey}`;
      break;
    case 'none':
    case 'hostile':
      break;
  }

  let body: Buffer | undefined;
  let json: unknown;
  if (request.body.kind === 'json') {
    json = resolveIds(request.body.value, pools);
    body = Buffer.from(JSON.stringify(json) ?? 'null', 'utf8');
    headers['Content-Type'] = request.body.contentType;
  } else if (request.body.kind === 'raw') {
    body = Buffer.from(request.body.text, 'utf8');
    if (request.body.contentType !== undefined) headers['Content-Type'] = request.body.contentType;
  }
  return { method: request.method, target, headers, body, pathParams, foreignPathParams, ...(request.body.kind === 'json' && { json }) };
}

/** Sends over a keep-alive agent; the raw text comes back whatever its type. No answer within `timeoutMs` is an error. */
export function send(agent: Agent, baseUrl: string, wire: WireRequest, timeoutMs = 30_000): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(baseUrl);
    // host/port/path rather than one URL string: a URL would resolve `..` segments before sending.
    const req = httpRequest(
      { hostname, port, path: wire.target, method: wire.method, agent, headers: { ...wire.headers, ...(wire.body && { 'Content-Length': String(wire.body.length) }) } },
      (res) => {
        // An event stream stays open for as long as the client listens: its headers are the answer.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.end(wire.body);
  });
}
