import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhooksStore } from '../../src/api/webhooks/store.js';
import { EVENT_NAMES } from '../../src/events/catalog.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, useMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { newWorld, type World } from '../helpers/world.js';

const T0 = Date.parse(TEST_CLOCK);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (ms: number) => new Date(T0 + ms).toISOString();
const q = (iso: string) => encodeURIComponent(iso);

const mock = useMock({ fixtures: false });
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(() => receiver.close());

const valid = () => ({ name: 'CRM', url: receiver.url, events: ['post.published'], secret: 'whsec_0123456789abcdef' });

async function createHook(world: World, body: Record<string, unknown> = {}) {
  const res = await world.call('post', '/v1/webhooks').send({ ...valid(), ...body });
  expectStatus(res, 201);
  return res.body as { id: string; enabled: boolean; consecutiveFailures: number };
}

describe('POST /v1/webhooks', () => {
  it('answers 201 with the webhook, never its secret', async () => {
    const world = await newWorld(mock);
    const res = await world.call('post', '/v1/webhooks').send(valid());
    expectStatus(res, 201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'CRM',
      url: receiver.url,
      enabled: true,
      events: ['post.published'],
      createdAt: TEST_CLOCK,
      updatedAt: TEST_CLOCK,
      hasSecret: true,
      consecutiveFailures: 0,
      disabledReason: null,
    });
    expect(JSON.stringify(res.body)).not.toContain('whsec_');
    const unsigned = await world.call('post', '/v1/webhooks').send({ name: 'plain', url: 'https://hooks.example/x', events: ['post.failed'], enabled: false });
    expect(unsigned.body).toMatchObject({ hasSecret: false, enabled: false });
  });

  it('accepts every limit at its edge: name 120, url 2048, secret 16 and 128, all 22 events', async () => {
    const world = await newWorld(mock);
    const url = `https://hooks.example/${'a'.repeat(2048 - 'https://hooks.example/'.length)}`;
    expect(url).toHaveLength(2048);
    for (const secret of ['s'.repeat(16), 's'.repeat(128)]) {
      const res = await world.call('post', '/v1/webhooks').send({ name: 'n'.repeat(120), url, events: [...EVENT_NAMES], secret });
      expectStatus(res, 201);
      expect(res.body.events).toHaveLength(22);
    }
  });

  describe('when a field breaks a limit', () => {
    it.each([
      ['name empty', { name: '' }, 'name', /fewer than 1/],
      ['name of 121', { name: 'n'.repeat(121) }, 'name', /more than 120/],
      ['name missing', { name: undefined }, 'name', /name/],
      ['url of 2049', { url: `https://hooks.example/${'a'.repeat(2049 - 22)}` }, 'url', /more than 2048/],
      ['url not http(s)', { url: 'ftp://hooks.example/x' }, 'url', /https\?/],
      ['url not a URL', { url: 'hooks.example/x' }, 'url', /url/],
      ['url missing', { url: undefined }, 'url', /url/],
      ['no events', { events: [] }, 'events', /fewer than 1/],
      ['23 events', { events: [...EVENT_NAMES, 'post.published'] }, 'events', /more than 22/],
      ['a repeated event', { events: ['post.published', 'post.published'] }, 'events', /duplicate/],
      ['an unknown event', { events: ['post.published', 'post.publish'] }, 'events[1]', /allowed values: post\.scheduled.*; got 'post\.publish'$/],
      ['events not an array', { events: 'post.published' }, 'events', /array/],
      ['secret of 15', { secret: 's'.repeat(15) }, 'secret', /fewer than 16/],
      ['secret of 129', { secret: 's'.repeat(129) }, 'secret', /more than 128/],
      ['enabled not a boolean', { enabled: 'yes' }, 'enabled', /boolean/],
      ['an unknown field', { retries: 3 }, 'retries', /retries/],
    ])('answers 400 VALIDATION_ERROR for %s, changing nothing', async (_case, override, param, message) => {
      const world = await newWorld(mock);
      const res = await world.call('post', '/v1/webhooks').send({ ...valid(), ...override });
      expectApiError(res, 400, 'VALIDATION_ERROR', param);
      expect(res.body.error.message).toMatch(message);
      expect((await world.call('get', '/v1/webhooks')).body.data).toEqual([]);
    });
  });

  describe('without a key', () => {
    it('answers 401', async () => {
      expectApiError(await mock.call('post', '/v1/webhooks', null).send(valid()), 401, 'UNAUTHORIZED');
    });
  });
});

describe('a webhook URL with a user name and password', () => {
  /** The receiver's URL with credentials: a password with an @ and a space, percent-encoded as a URL carries them. */
  const withCredentials = () => receiver.url.replace('http://', 'http://hook-user:p%40ss%20word@');
  const masked = () => receiver.url.replace('http://', 'http://hook-user:***@');
  const basic = `Basic ${Buffer.from('hook-user:p@ss word').toString('base64')}`;

  it('is accepted, and every answer about the webhook shows the password masked', async () => {
    const world = await newWorld(mock);
    const created = await world.call('post', '/v1/webhooks').send({ ...valid(), url: withCredentials() });
    expectStatus(created, 201);
    expect(created.body.url).toBe(masked());
    expect((await world.call('get', `/v1/webhooks/${created.body.id}`)).body.url).toBe(masked());
    expect((await world.call('get', '/v1/webhooks')).body.data.map((hook: { url: string }) => hook.url)).toEqual([masked()]);
    const patched = await world.call('patch', `/v1/webhooks/${created.body.id}`).send({ name: 'Renamed' });
    expect(patched.body.url).toBe(masked());
  });

  it('is delivered to the URL without them, with Authorization: Basic', async () => {
    const world = await newWorld(mock);
    const hook = await createHook(world, { url: withCredentials() });
    expect((await world.call('post', `/v1/webhooks/${hook.id}/test`)).body.status).toBe('succeeded');
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.path).toBe('/hooks');
    expect(receiver.requests[0]?.headers.authorization).toBe(basic);
  });

  it('sends no Authorization to a URL without them', async () => {
    const world = await newWorld(mock);
    const hook = await createHook(world);
    await world.call('post', `/v1/webhooks/${hook.id}/test`);
    expect(receiver.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('never shows the password in the delivery log, the journal, the clock\'s jobs or the request log', async () => {
    const lines: string[] = [];
    const logged = await startMock({ fixtures: false, logRequests: (line) => lines.push(line) });
    try {
      const world = await newWorld(logged);
      receiver.answer(500);
      await createHook(world, { url: withCredentials() });
      world.emit('post.published');
      await receiver.waitFor(1);
      // The retry is a scheduled job named after the URL; advancing runs it and lists it.
      const moved = await world.advance(MINUTE);
      expect(receiver.requests.map((request) => request.headers.authorization)).toEqual([basic, basic]);
      const hooks = (await world.call('get', '/v1/webhooks')).body.data as Array<{ id: string }>;
      const deliveries = await world.call('get', `/v1/webhooks/${hooks[0]?.id}/deliveries`);
      expect(deliveries.body.data[0].attempts).toHaveLength(2);
      const seen = [
        JSON.stringify(moved.body),
        JSON.stringify(deliveries.body),
        JSON.stringify((await world.control('get', '/__control/journal')).body),
        JSON.stringify((await world.control('get', '/__control/clock')).body),
        lines.join('\n'),
      ];
      expect(JSON.stringify(moved.body)).toContain('hook-user:***@');
      for (const text of seen) expect(text).not.toMatch(/p%40ss|p@ss/);
    } finally {
      await logged.close();
    }
  });

  describe('when a PATCH sends the masked URL back', () => {
    it('keeps the password: a read-modify-write client does not lose it', async () => {
      const world = await newWorld(mock);
      const hook = await createHook(world, { url: withCredentials() });
      const read = (await world.call('get', `/v1/webhooks/${hook.id}`)).body as Record<string, unknown>;
      expectStatus(await world.call('patch', `/v1/webhooks/${hook.id}`).send({ url: read.url, name: 'Renamed' }), 200);
      await world.call('post', `/v1/webhooks/${hook.id}/test`);
      expect(receiver.requests[0]?.headers.authorization).toBe(basic);
    });

    it('replaces the credentials when a new password is sent', async () => {
      const world = await newWorld(mock);
      const hook = await createHook(world, { url: withCredentials() });
      const res = await world.call('patch', `/v1/webhooks/${hook.id}`).send({ url: receiver.url.replace('http://', 'http://other:secret2@') });
      expect(res.body.url).toBe(receiver.url.replace('http://', 'http://other:***@'));
      await world.call('post', `/v1/webhooks/${hook.id}/test`);
      expect(receiver.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from('other:secret2').toString('base64')}`);
    });
  });
});

describe('GET /v1/webhooks', () => {
  it('pages newest first, each webhook once', async () => {
    const world = await newWorld(mock);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createHook(world, { name: `hook ${i}` })).id);
    const first = await world.call('get', '/v1/webhooks?limit=3');
    expectStatus(first, 200);
    expect(first.body.hasMore).toBe(true);
    const second = await world.call('get', `/v1/webhooks?limit=3&cursor=${q(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect([...first.body.data, ...second.body.data].map((hook: { id: string }) => hook.id)).toEqual([...ids].reverse());
  });

  it.each([['0'], ['101']])('answers 400 for limit=%s', async (limit) => {
    expectApiError(await mock.call('get', `/v1/webhooks?limit=${limit}`), 400, 'VALIDATION_ERROR', 'limit');
  });
});

describe('GET /v1/webhooks/{id}', () => {
  it('answers the webhook', async () => {
    const world = await newWorld(mock);
    const hook = await createHook(world);
    expect((await world.call('get', `/v1/webhooks/${hook.id}`)).body).toMatchObject({ id: hook.id, name: 'CRM' });
  });

  describe('when the webhook belongs to another workspace', () => {
    it('answers 404 NOT_FOUND', async () => {
      const mine = await newWorld(mock);
      const theirs = await newWorld(mock);
      const hook = await createHook(theirs);
      expectApiError(await mine.call('get', `/v1/webhooks/${hook.id}`), 404, 'NOT_FOUND');
      expectApiError(await mine.call('patch', `/v1/webhooks/${hook.id}`).send({ name: 'x' }), 404, 'NOT_FOUND');
      expectApiError(await mine.call('delete', `/v1/webhooks/${hook.id}`), 404, 'NOT_FOUND');
      expectApiError(await mine.call('post', `/v1/webhooks/${hook.id}/test`), 404, 'NOT_FOUND');
      expectApiError(await mine.call('get', `/v1/webhooks/${hook.id}/deliveries`), 404, 'NOT_FOUND');
      expectStatus(await theirs.call('get', `/v1/webhooks/${hook.id}`), 200);
    });
  });
});

describe('PATCH /v1/webhooks/{id}', () => {
  it('changes only the fields sent', async () => {
    const world = await newWorld(mock);
    const hook = await createHook(world);
    await world.advance(MINUTE);
    const res = await world.call('patch', `/v1/webhooks/${hook.id}`).send({ name: 'Renamed', events: ['post.failed', 'account.expired'] });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ name: 'Renamed', url: receiver.url, events: ['post.failed', 'account.expired'], hasSecret: true, createdAt: TEST_CLOCK, updatedAt: at(MINUTE) });
  });

  it('disables and enables', async () => {
    const world = await newWorld(mock);
    const hook = await createHook(world);
    expect((await world.call('patch', `/v1/webhooks/${hook.id}`).send({ enabled: false })).body).toMatchObject({ enabled: false, disabledReason: null });
    expect((await world.call('patch', `/v1/webhooks/${hook.id}`).send({ enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null });
  });

  describe('when a field breaks a limit', () => {
    it.each([
      [{ name: '' }, 'name'],
      [{ url: 'mailto:someone@hooks.example' }, 'url'],
      [{ events: [] }, 'events'],
      [{ events: ['comment.deleted'] }, 'events[0]'],
      [{ secret: 'a-new-secret-of-enough-length' }, 'secret'],
      [{ enabled: 1 }, 'enabled'],
    ])('answers 400 VALIDATION_ERROR for %j and changes nothing', async (body, param) => {
      const world = await newWorld(mock);
      const hook = await createHook(world);
      expectApiError(await world.call('patch', `/v1/webhooks/${hook.id}`).send(body), 400, 'VALIDATION_ERROR', param);
      expect((await world.call('get', `/v1/webhooks/${hook.id}`)).body).toMatchObject({ name: 'CRM', url: receiver.url, events: ['post.published'], enabled: true });
    });
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('answers 200 with an empty body, forgets the webhook and drops its pending retries', async () => {
    const world = await newWorld(mock);
    const hook = await createHook(world);
    receiver.answerAlways(500);
    world.emit('post.published');
    await world.advance(0);
    expect((await world.control('get', '/__control/clock')).body.pendingJobs).toBe(1);
    const res = await world.call('delete', `/v1/webhooks/${hook.id}`);
    expectStatus(res, 200);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect((await world.control('get', '/__control/clock')).body.pendingJobs).toBe(0);
    expectApiError(await world.call('get', `/v1/webhooks/${hook.id}`), 404, 'NOT_FOUND');
    await world.advance(DAY);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('GET /v1/webhooks/{id}/deliveries', () => {
  /**
   * A log with every status: two successes at T0, then at T0+2h a pending
   * delivery (its first attempt forced to fail) and a failed test delivery.
   */
  async function loggedWorld() {
    const world = await newWorld(mock);
    const hook = await createHook(world, { events: ['post.published', 'post.failed', 'account.connected'] });
    world.emit('post.published');
    world.emit('post.failed');
    await world.advance(2 * HOUR);
    expectStatus(await world.control('post', `/__control/webhooks/${hook.id}/faults`).send({ failStatus: 503, failCount: 1 }), 200);
    world.emit('account.connected');
    receiver.answer(500);
    expectStatus(await world.call('post', `/v1/webhooks/${hook.id}/test`), 200);
    await world.advance(0);
    return { world, hook, list: (query = '') => world.call('get', `/v1/webhooks/${hook.id}/deliveries${query}`) };
  }

  it('lists newest first and pages with the cursor', async () => {
    const { list } = await loggedWorld();
    const first = await list('?limit=3');
    expectStatus(first, 200);
    expect(first.body.data.map((d: { event: string; status: string }) => `${d.event}:${d.status}`)).toEqual(['webhook.test:failed', 'account.connected:pending', 'post.failed:succeeded']);
    expect(first.body.hasMore).toBe(true);
    const second = await list(`?limit=3&cursor=${q(first.body.nextCursor)}`);
    expect(second.body.data.map((d: { event: string }) => d.event)).toEqual(['post.published']);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expectApiError(await list(`?limit=2&cursor=${q(first.body.nextCursor)}`), 400, 'INVALID_CURSOR', 'cursor');
  });

  it('shows each delivery with its attempts', async () => {
    const { hook, list } = await loggedWorld();
    const pending = (await list('?status=pending')).body.data;
    expect(pending).toEqual([
      {
        id: expect.any(String),
        webhookId: hook.id,
        eventId: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        event: 'account.connected',
        status: 'pending',
        attempts: [{ attempt: 1, at: at(2 * HOUR), responseStatus: 503, durationMs: null, error: expect.stringContaining('forced') }],
        nextAttemptAt: at(2 * HOUR + MINUTE),
        createdAt: at(2 * HOUR),
        lastAttemptAt: at(2 * HOUR),
      },
    ]);
  });

  it('filters by status and by event', async () => {
    const { list } = await loggedWorld();
    expect((await list('?status=succeeded')).body.data.map((d: { event: string }) => d.event)).toEqual(['post.failed', 'post.published']);
    expect((await list('?status=failed')).body.data.map((d: { event: string }) => d.event)).toEqual(['webhook.test']);
    expect((await list('?event=post.failed')).body.data.map((d: { status: string }) => d.status)).toEqual(['succeeded']);
    expect((await list('?event=post.failed&status=failed')).body.data).toEqual([]);
  });

  it('counts per status with include=facets, whatever status asks for', async () => {
    const { list } = await loggedWorld();
    expect((await list('?include=facets')).body.facets).toEqual({ pending: 1, succeeded: 2, failed: 1 });
    const onlyPending = await list('?include=facets&status=pending');
    expect(onlyPending.body.data).toHaveLength(1);
    expect(onlyPending.body.facets).toEqual({ pending: 1, succeeded: 2, failed: 1 });
    expect((await list('?include=facets&event=post.published')).body.facets).toEqual({ pending: 0, succeeded: 1, failed: 0 });
    expect((await list()).body).not.toHaveProperty('facets');
  });

  it('counts over UTC-aligned buckets sized by the range with include=histogram', async () => {
    const { list } = await loggedWorld();
    // Default range, 7 days: 6-hour buckets from 2026-02-23T06:00 to the one holding now (11:00).
    const week = (await list('?include=histogram,facets')).body.histogram as Array<{ start: string; end: string; pending: number; succeeded: number; failed: number }>;
    expect(week).toHaveLength(29);
    expect(week[0]).toEqual({ start: '2026-02-23T06:00:00.000Z', end: '2026-02-23T12:00:00.000Z', pending: 0, succeeded: 0, failed: 0 });
    expect(week.at(-1)).toEqual({ start: '2026-03-02T06:00:00.000Z', end: '2026-03-02T12:00:00.000Z', pending: 1, succeeded: 2, failed: 1 });
    // 3 hours asked: 5-minute buckets; nothing is logged after now (T0+2h), so the buckets stop there.
    const hours = (await list(`?include=histogram&since=${q(at(-30 * MINUTE))}&until=${q(at(150 * MINUTE))}`)).body.histogram as typeof week;
    expect(hours).toHaveLength(31);
    expect(hours.at(-1)).toMatchObject({ start: at(2 * HOUR), end: at(2 * HOUR + 5 * MINUTE) });
    expect(hours.filter((bucket) => bucket.pending + bucket.succeeded + bucket.failed > 0)).toEqual([
      { start: at(0), end: at(5 * MINUTE), pending: 0, succeeded: 2, failed: 0 },
      { start: at(2 * HOUR), end: at(2 * HOUR + 5 * MINUTE), pending: 1, succeeded: 0, failed: 1 },
    ]);
    // One hour: 1-minute buckets.
    const minutes = (await list(`?include=histogram&since=${q(at(0))}&until=${q(at(HOUR))}`)).body.histogram as typeof week;
    expect(minutes).toHaveLength(60);
    expect(minutes[0]).toMatchObject({ start: at(0), end: at(MINUTE), succeeded: 2 });
  });

  it('keeps the last 7 days by default and older ones within the retention on request', async () => {
    const world = await newWorld(mock);
    const hook = await createHook(world);
    world.emit('post.published');
    await world.advance(8 * DAY);
    world.emit('post.published');
    await world.advance(0);
    const list = (query = '') => world.call('get', `/v1/webhooks/${hook.id}/deliveries${query}`);
    expect((await list()).body.data.map((d: { createdAt: string }) => d.createdAt)).toEqual([at(8 * DAY)]);
    expect((await list(`?since=${q(at(-HOUR))}`)).body.data.map((d: { createdAt: string }) => d.createdAt)).toEqual([at(8 * DAY), at(0)]);
    // until alone: the 7 days before it.
    expect((await list(`?until=${q(at(DAY))}`)).body.data.map((d: { createdAt: string }) => d.createdAt)).toEqual([at(0)]);
    expect((await list(`?since=${q(at(0))}&until=${q(at(8 * DAY))}`)).body.data.map((d: { createdAt: string }) => d.createdAt)).toEqual([at(0)]);
  });

  it('keeps 30 days on payg: an older since starts at the oldest kept, and the next delivery prunes the rest', async () => {
    const world = await newWorld(mock, { plan: 'payg' });
    const hook = await createHook(world);
    world.emit('post.published');
    await world.advance(8 * DAY);
    world.emit('post.published');
    await world.advance(25 * DAY);
    const list = (query = '') => world.call('get', `/v1/webhooks/${hook.id}/deliveries${query}`);
    expect((await list(`?since=${q(at(-HOUR))}`)).body.data.map((d: { createdAt: string }) => d.createdAt)).toEqual([at(8 * DAY)]);
    expect(webhooksStore.get(world.workspace).deliveries[hook.id]).toHaveLength(2);
    world.emit('post.published');
    await world.advance(0);
    expect(webhooksStore.get(world.workspace).deliveries[hook.id]?.map((d) => d.createdAt)).toEqual([at(8 * DAY), at(33 * DAY)]);
  });

  it('keeps 3 days on free, even inside the default 7', async () => {
    const world = await newWorld(mock, { plan: 'free' });
    const hook = await createHook(world);
    world.emit('post.published');
    await world.advance(2 * DAY);
    const list = (query = '') => world.call('get', `/v1/webhooks/${hook.id}/deliveries${query}`);
    expect((await list()).body.data).toHaveLength(1);
    await world.advance(DAY + 1);
    expect((await list()).body.data).toEqual([]);
    expect((await list(`?since=${q(at(-HOUR))}&include=facets`)).body).toMatchObject({ data: [], facets: { pending: 0, succeeded: 0, failed: 0 } });
    world.emit('post.published');
    await world.advance(0);
    expect(webhooksStore.get(world.workspace).deliveries[hook.id]).toHaveLength(1);
  });

  describe('when a parameter is wrong', () => {
    it.each([
      ['?since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z', 'INVALID_RANGE', 'since', /before/],
      ['?since=2026-03-01', 'VALIDATION_ERROR', 'since', /date-time/],
      ['?until=2026-03-01T10:00:00', 'VALIDATION_ERROR', 'until', /date-time/],
      ['?include=facets,total', 'VALIDATION_ERROR', 'include', /facets, histogram; 'total'/],
      ['?status=delivered', 'VALIDATION_ERROR', 'status', /pending, succeeded, failed; got 'delivered'$/],
      ['?event=post.publish', 'VALIDATION_ERROR', 'event', /got 'post\.publish'$/],
      ['?limit=101', 'VALIDATION_ERROR', 'limit', /100/],
      ['?cursor=bm9wZQ', 'INVALID_CURSOR', 'cursor', /cursor/],
    ])('%s answers 400 %s', async (query, code, param, message) => {
      const world = await newWorld(mock);
      const hook = await createHook(world);
      const res = await world.call('get', `/v1/webhooks/${hook.id}/deliveries${query}`);
      expectApiError(res, 400, code, param);
      expect(res.body.error.message).toMatch(message);
    });

    it('answers 404 for an unknown webhook', async () => {
      expectApiError(await mock.call('get', '/v1/webhooks/8c1f4a52-0000-4000-8000-000000000000/deliveries'), 404, 'NOT_FOUND');
    });
  });
});
