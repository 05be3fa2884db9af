import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { answered2xx, OPERATIONS, walkEveryOperation, type Exchange } from '../contract/every-operation.js';
import { boundEventStreams, CONTROL_OPERATIONS, walkEveryControlOperation } from '../contract/every-control-operation.js';
import { useMock } from '../helpers/mock.js';
import { SseClient } from '../helpers/sse-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * One clock (issue 19): every time the mock shows comes from the workspace's virtual
 * clock. The server's clock starts years ahead of the wall clock, every operation of
 * openapi.yaml and control.yaml is walked, and every response header and body, every
 * webhook request the receiver took and every event of the stream is searched for times
 * (ISO 8601 date-times, HTTP dates, Unix seconds and milliseconds): each must lie near
 * the virtual clock, none near the wall clock.
 */

const START = '2031-01-02T09:00:00.000Z';
const startMs = Date.parse(START);
const DAY_MS = 86_400_000;
/** How far the fixture world reaches back from its clock (accounts connected, posts published) and ahead (tokens, schedules). */
const BACK_MS = 400 * DAY_MS;
const AHEAD_MS = 120 * DAY_MS;
/** A time this close to the wall clock is the wall clock's. */
const WALL_MS = 30 * DAY_MS;

const ISO_DATE_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const HTTP_DATE = /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT\b/g;
/** Unix seconds or milliseconds standing alone (a header's value, a line of text). */
const EPOCH = /(?<![\w."-])(\d{13}|\d{10})(?![\w."-])/g;
const CENTURY = [Date.parse('2000-01-01T00:00:00Z'), Date.parse('2100-01-01T00:00:00Z')] as const;

/** A number read as Unix seconds or milliseconds, when it has the size of this century's instants. */
function epochMs(value: number): number | undefined {
  const ms = value >= 1e12 && value < 1e13 ? value : value >= 1e9 && value < 1e10 ? value * 1000 : undefined;
  return ms !== undefined && ms > CENTURY[0] && ms < CENTURY[1] ? ms : undefined;
}

interface Found {
  where: string;
  text: string;
  ms: number;
}

/** Every time written in `text`, with where it was found; `epochs`: bare numbers too. */
function timesIn(where: string, text: string, epochs = true): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(ISO_DATE_TIME)) {
    // A date-time without a zone is a local time (a schedule's wall time in its own zone): read as UTC, it is still within a day.
    const ms = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/.test(match[0]) ? match[0] : `${match[0]}Z`);
    if (!Number.isNaN(ms)) found.push({ where, text: match[0], ms });
  }
  for (const match of text.matchAll(HTTP_DATE)) found.push({ where, text: match[0], ms: Date.parse(match[0]) });
  if (!epochs) return found;
  for (const match of text.matchAll(EPOCH)) {
    const ms = epochMs(Number(match[1]));
    if (ms !== undefined) found.push({ where, text: match[1] as string, ms });
  }
  return found;
}

/**
 * Every time in a JSON value: in its strings (date-times; a string of digits is an id, not
 * a time) and its numbers of an instant's size (`nowMs`, `dueAt`), seeds left out.
 */
function jsonTimes(where: string, value: unknown, key = ''): Found[] {
  if (typeof value === 'string') return timesIn(`${where} ${key}`, value, false);
  if (typeof value === 'number') {
    const ms = /seed/i.test(key) ? undefined : epochMs(value);
    return ms === undefined ? [] : [{ where: `${where} ${key}`, text: String(value), ms }];
  }
  if (Array.isArray(value)) return value.flatMap((item) => jsonTimes(where, item, key));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([name, inner]) => jsonTimes(where, inner, name));
  return [];
}

function headersText(headers: Headers | Record<string, unknown>): string {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return entries.map(([name, value]) => `${name}: ${String(value)}`).join('\n');
}

function exchangeTimes(exchange: Exchange): Found[] {
  const where = `${exchange.operationId} ${exchange.method} ${exchange.path}`;
  const body = typeof exchange.body === 'string' ? timesIn(`${where} (body)`, exchange.body) : jsonTimes(`${where} (body)`, exchange.body);
  return [...timesIn(`${where} (headers)`, headersText(exchange.headers)), ...body];
}

/**
 * The times that are not the virtual world's: near the wall clock, or far from every
 * virtual clock of the walk (the server's start, and a scenario's own start when one is loaded).
 */
function leaks(found: Found[], wallMs: number, clocks: number[] = [startMs]): string[] {
  return found.filter((time) => Math.abs(time.ms - wallMs) < WALL_MS || clocks.every((clock) => time.ms < clock - BACK_MS || time.ms > clock + AHEAD_MS)).map((time) => `${time.where}: ${time.text}`);
}

/** The contract's examples schedule posts in their own years (2027): moved as far ahead as the clock is. */
function laterYears(_operationId: string, value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/"(20\d\d)-(\d\d-\d\dT)/g, (_match, year: string, rest: string) => `"${Number(year) + 4}-${rest}`));
}

const mock = useMock({ clock: START }, { listen: true });
let receiver: WebhookReceiver;
let events: SseClient;
let apiExchanges: Exchange[];
let controlExchanges: Exchange[];
let wallMs: number;

beforeAll(async () => {
  wallMs = Date.now();
  receiver = await WebhookReceiver.start();
  // Everything the default workspace emits while the API is walked.
  events = await SseClient.open(`${mock.url}/__control/events?replay=true`);
  apiExchanges = await walkEveryOperation({ apiUrl: mock.url, mockUrl: mock.url, apiKey: DEFAULT_API_KEY, hookUrl: receiver.url, adaptExample: laterYears });
  // Deliveries still on the wire are settled before anything is read.
  await mock.control('post', '/__control/clock/advance').send({ ms: 0 });
  const relay = await boundEventStreams(mock.url);
  try {
    controlExchanges = await walkEveryControlOperation({ controlUrl: relay.url, mockUrl: mock.url, hookUrl: receiver.url });
  } finally {
    await relay.close();
  }
}, 120_000);

afterAll(async () => {
  events.close();
  await receiver.close();
});

describe('on a clock set years ahead of the wall clock', () => {
  it('walks every operation of both contracts', () => {
    expect(OPERATIONS.map((op) => op.operationId).filter((id) => !answered2xx(apiExchanges).has(id))).toEqual([]);
    expect(CONTROL_OPERATIONS.map((op) => op.operationId).filter((id) => !answered2xx(controlExchanges).has(id))).toEqual([]);
  });

  it('shows no wall-clock time in any API response, header or body', () => {
    const found = apiExchanges.flatMap(exchangeTimes);
    expect(found.length).toBeGreaterThan(300);
    expect(leaks(found, wallMs)).toEqual([]);
  });

  it('shows no wall-clock time in any control response, header or body, the event stream and snapshot among them', () => {
    const found = controlExchanges.flatMap(exchangeTimes);
    expect(found.length).toBeGreaterThan(200);
    // The ready-made scenario the walk loads starts its own clock; it is virtual too, and far from the wall clock.
    const scenarioClock = Date.parse((controlExchanges.find((exchange) => exchange.operationId === 'loadScenario')?.body as { clock: { now: string } }).clock.now);
    expect(wallMs - scenarioClock).toBeGreaterThan(WALL_MS + AHEAD_MS);
    expect(leaks(found, wallMs, [startMs, scenarioClock])).toEqual([]);
  });

  it('dates every API response with the workspace’s own now, so X-RateLimit-Reset minus Date is the wait', () => {
    for (const exchange of apiExchanges) {
      const date = exchange.headers.get('date');
      expect(date, exchange.operationId).toBe(new Date(startMs).toUTCString());
      const waitSeconds = Number(exchange.headers.get('x-ratelimit-reset')) - Date.parse(date as string) / 1000;
      expect(waitSeconds, exchange.operationId).toBeGreaterThan(0);
      expect(waitSeconds, exchange.operationId).toBeLessThanOrEqual(60);
    }
  });

  it('dates a control response with the time the call leaves the clock at', async () => {
    const key = (await mock.control('post', '/__control/workspaces').send({ fixtures: false, clock: { frozen: true } })).body.apiKey as string;
    const moved = await mock.control('post', '/__control/clock/advance', key).send({ by: 'P3D' });
    expect(moved.headers.date).toBe(new Date(startMs + 3 * 86_400_000).toUTCString());
    expect(Date.parse(moved.headers.date as string)).toBe(Date.parse(moved.body.now as string));
  });

  it('dates the answers outside the contracts (a 401, the index, the docs, the contracts) with the default workspace’s clock', async () => {
    for (const path of ['/v1/connections', '/', '/docs/', '/openapi.yaml', '/control.yaml']) {
      const res = await fetch(`${mock.url}${path}`);
      await res.arrayBuffer();
      expect(res.headers.get('date'), path).toBe(new Date(startMs).toUTCString());
    }
  });

  it('dates a sign-in page, an upload and a media file with the clock of the workspace they belong to', async () => {
    const laterMs = startMs + 10 * DAY_MS;
    const key = (await mock.control('post', '/__control/workspaces').send({ clock: { start: new Date(laterMs).toISOString(), frozen: true } })).body.apiKey as string;
    const local = (address: string) => `${mock.url}${new URL(address).pathname}${new URL(address).search}`;
    const connect = await mock.call('post', '/v1/connections/instagram/connect', key).send({ redirectUrl: 'https://app.example/done' });
    const presigned = await mock.call('post', '/v1/media/presign', key).send({ filename: 'photo.jpg', contentType: 'image/jpeg' });
    const answers = [
      await fetch(local(connect.body.url as string)),
      await fetch(local(presigned.body.uploadUrl as string), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Uint8Array([0xff, 0xd8, 0xff]) }),
      await fetch(local(presigned.body.publicUrl as string)),
    ];
    for (const res of answers) {
      await res.arrayBuffer();
      expect(res.status, res.url).toBe(200);
      expect(res.headers.get('date'), res.url).toBe(new Date(laterMs).toUTCString());
    }
  });

  it('shows no wall-clock time in a webhook request the receiver took, headers or payload', () => {
    expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
    const found = receiver.requests.flatMap((request, i) => [...timesIn(`webhook ${i} ${request.json.event} (headers)`, headersText(request.headers)), ...jsonTimes(`webhook ${i} ${request.json.event} (body)`, JSON.parse(request.body))]);
    expect(found.length).toBeGreaterThanOrEqual(receiver.requests.length);
    expect(leaks(found, wallMs)).toEqual([]);
  });

  it('shows no wall-clock time in the event stream', () => {
    expect(events.events().length).toBeGreaterThan(5);
    const found = [...timesIn('event stream (headers)', headersText(events.response.headers)), ...events.messages.flatMap((message, i) => (message.data === undefined ? [] : jsonTimes(`event ${i} ${message.event ?? ''}`, JSON.parse(message.data))))];
    expect(leaks(found, wallMs)).toEqual([]);
  });

  it('shows no wall-clock time in the journal', async () => {
    const journal = await mock.control('get', '/__control/journal?limit=1000');
    expect(journal.body.data.length).toBeGreaterThan(50);
    expect(leaks(jsonTimes('journal', journal.body), wallMs)).toEqual([]);
  });
});
