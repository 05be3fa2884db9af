import { MAX_JSON_DEPTH, nestedDeeperThan } from '../lib/nesting.js';
import { REDACTED, valueScrubber, type Redactor } from '../redaction/redactor.js';
import type { RecordedBody, RecordedExchange } from './recording.js';

/*
 * A recorded exchange as the proxy writes it: the Redactor's rules (by name, by shape), and then
 * every value that was held under a secret name replaced wherever else it appears, both ways
 * (the answer echoing a key, a request repeating a token the answer gave).
 */

/** A recorded exchange with every secret hidden. */
export function redactExchange(redactor: Redactor, exchange: RecordedExchange, pathParams: Readonly<Record<string, string>> = {}): RecordedExchange {
  try {
    return redacted(redactor, exchange, pathParams);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // A text too long to search: fail closed, both bodies hidden whole, the rest by name.
    const hidden = (message: RecordedBody): RecordedBody => (message.json === undefined && message.text === undefined ? {} : { text: REDACTED });
    return {
      ...exchange,
      request: { ...exchange.request, path: redactor.path(exchange.request.path, pathParams), query: redactor.query(exchange.request.query), headers: redactor.headers(exchange.request.headers), json: undefined, text: undefined, ...hidden(exchange.request) },
      response: exchange.response && { ...exchange.response, headers: redactor.headers(exchange.response.headers), json: undefined, text: undefined, ...hidden(exchange.response) },
    };
  }
}

function redacted(redactor: Redactor, exchange: RecordedExchange, pathParams: Readonly<Record<string, string>>): RecordedExchange {
  const scrub = exchangeScrubber(redactor, exchange, pathParams);
  const request = {
    ...exchange.request,
    path: scrub(redactor.path(exchange.request.path, pathParams)),
    query: scrub(redactor.query(exchange.request.query)),
    headers: scrubRecord(redactor.headers(exchange.request.headers), scrub),
    json: undefined,
    text: undefined,
    ...body(redactor, exchange.request, scrub),
  };
  const response = exchange.response && {
    ...exchange.response,
    headers: scrubRecord(redactor.headers(exchange.response.headers), scrub),
    json: undefined,
    text: undefined,
    ...body(redactor, exchange.response, scrub),
  };
  return {
    ...exchange,
    request,
    response,
    ...(exchange.upstreamError && { upstreamError: { ...exchange.upstreamError, message: scrub(exchange.upstreamError.message) } }),
  };
}

/** Replaces, in any text, every value the exchange held under a secret name. */
export function exchangeScrubber(redactor: Redactor, exchange: Pick<RecordedExchange, 'request' | 'response'>, pathParams: Readonly<Record<string, string>> = {}): (text: string) => string {
  const secrets = redactor.secretValuesOfRequest(exchange.request.headers, exchange.request.query);
  for (const [name, value] of Object.entries(pathParams)) if (redactor.isSecretPathParam(name)) secrets.add(value);
  if (exchange.request.json !== undefined) redactor.secretValuesOfJson(exchange.request.json, secrets);
  if (exchange.response) {
    redactor.secretValuesOfRequest(exchange.response.headers, '', secrets);
    if (exchange.response.json !== undefined) redactor.secretValuesOfJson(exchange.response.json, secrets);
  }
  return valueScrubber(secrets);
}

/**
 * A body nested deeper than the API accepts is hidden whole (fail closed): a recording holding it
 * could not be read back (readRecording refuses such a file, so drift and from-recording would
 * refuse the whole folder), nor replayed, and past a few thousand levels not even written.
 */
function body(redactor: Redactor, message: RecordedBody, scrub: (text: string) => string): RecordedBody {
  if (message.json !== undefined && nestedDeeperThan(message.json, MAX_JSON_DEPTH)) return { text: REDACTED };
  if (message.json !== undefined) return { json: scrubJson(redactor.json(message.json), scrub) };
  if (message.text !== undefined) return { text: scrub(redactor.text(message.text)) };
  return {};
}

function scrubRecord(record: Record<string, string>, scrub: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([name, value]) => [name, scrub(value)]));
}

/** Every string of a JSON value scrubbed, walked with its own stack (a recorded answer may nest deep). */
function scrubJson(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (typeof value !== 'object' || value === null) return value;
  const root: unknown = Array.isArray(value) ? [...value] : { ...value };
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop() as Record<string | number, unknown>;
    for (const name of Object.keys(node)) {
      const field = node[name];
      if (typeof field === 'string') node[name] = scrub(field);
      else if (typeof field === 'object' && field !== null) {
        const copy = Array.isArray(field) ? [...field] : { ...field };
        node[name] = copy;
        pending.push(copy);
      }
    }
  }
  return root;
}
