import { beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/events/catalog.js';
import { expectEventDataInContract } from '../helpers/events.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { freshWorld, worldOf, type World } from '../helpers/fixture-world.js';

const mock = useMock();
let world: World;
beforeAll(() => {
  world = worldOf(mock);
});

type Review = { id: string; createdAt: string; recommendation: string | null; rating: number | null; text: string | null; reviewerName: string | null };

describe('GET /v1/accounts/{id}/reviews', () => {
  it('lists the page’s reviews newest first', async () => {
    const res = await mock.call('get', `/v1/accounts/${world.account('facebook').id}/reviews`);
    expectStatus(res, 200);
    const data = res.body.data as Review[];
    expect(data).toHaveLength(6);
    expect(data.map((r) => r.createdAt)).toEqual(data.map((r) => r.createdAt).sort().reverse());
    expect(res.body).toMatchObject({ nextCursor: null, hasMore: false });
    // Recommendations and older star ratings, never both.
    expect(data.every((r) => (r.recommendation === null) !== (r.rating === null))).toBe(true);
    expect(data.some((r) => r.text === null)).toBe(true);
    expect(data.some((r) => r.reviewerName === null)).toBe(true);
  });

  it('pages with limit and cursor', async () => {
    const id = world.account('facebook').id;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await mock.call('get', `/v1/accounts/${id}/reviews?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expectStatus(res, 200);
      seen.push(...(res.body.data as Review[]).map((r) => r.id));
      expect(res.body.hasMore).toBe(res.body.nextCursor !== null);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('shows a new review first', async () => {
    const w = await freshWorld(mock);
    const page = w.account('facebook');
    const inbound = await mock.control('post', '/__control/inbound/reviews', w.apiKey).send({ recommendation: 'negative', text: 'Cold coffee.' });
    expectStatus(inbound, 201);
    const res = await mock.call('get', `/v1/accounts/${page.id}/reviews?limit=1`, w.apiKey);
    expect(res.body.data[0]).toEqual({ ...inbound.body.review });
    expect(res.body.data[0]).toMatchObject({ recommendation: 'negative', rating: null, text: 'Cold coffee.', createdAt: '2026-03-02T09:00:00.000Z' });
  });

  it('answers 400 INVALID_CURSOR for a cursor from another list', async () => {
    const first = await mock.call('get', `/v1/accounts/${world.account('facebook').id}/reviews?limit=2`);
    const other = await mock.call('get', `/v1/comments?destinationId=${world.destination('bluesky').destination.id}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expectApiError(other, 400, 'INVALID_CURSOR', 'cursor');
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED for an account that is not a facebook page', async () => {
    expectApiError(await mock.call('get', `/v1/accounts/${world.account('instagram').id}/reviews`), 400, 'PLATFORM_NOT_SUPPORTED', 'id');
  });

  it('answers 400 VALIDATION_ERROR for a limit above 50, and 404 for another workspace’s account', async () => {
    expectApiError(await mock.call('get', `/v1/accounts/${world.account('facebook').id}/reviews?limit=51`), 400, 'VALIDATION_ERROR', 'limit');
    const other = await freshWorld(mock);
    expectApiError(await mock.call('get', `/v1/accounts/${world.account('facebook').id}/reviews`, other.apiKey), 404, 'NOT_FOUND', 'id');
  });
});

describe('POST /__control/inbound/reviews', () => {
  it('adds a seeded review to the oldest facebook page and emits review.new', async () => {
    const w = await freshWorld(mock);
    const page = w.account('facebook');
    const mark = w.mark();
    const res = await mock.control('post', '/__control/inbound/reviews', w.apiKey);
    expectStatus(res, 201);
    expect(res.body.accountId).toBe(page.id);
    expect(res.body.review).toMatchObject({ id: expect.stringMatching(/^\d{17}$/), rating: null, text: expect.any(String), reviewerName: expect.any(String), createdAt: '2026-03-02T09:00:00.000Z' });
    expect(['positive', 'negative']).toContain(res.body.review.recommendation);
    const events = w.eventsSince(mark);
    expect(events.map((e) => e.event)).toEqual(['review.new']);
    expect(events[0]?.data).toEqual({ accountId: page.id, platform: 'facebook', review: res.body.review });
    expectEventDataInContract(events[0] as DomainEvent);
    expect(res.body.events).toEqual(events.map((e) => ({ ...e })));
  });

  it('takes an older star review with a rating', async () => {
    const res = await mock.control('post', '/__control/inbound/reviews').send({ rating: 5, text: null, reviewerName: null });
    expectStatus(res, 201);
    expect(res.body.review).toMatchObject({ recommendation: null, rating: 5, text: null, reviewerName: null });
  });

  it('answers 400 naming rating when it comes with a recommendation', async () => {
    expectApiError(await mock.control('post', '/__control/inbound/reviews').send({ recommendation: 'positive', rating: 4 }), 400, 'VALIDATION_ERROR', 'rating');
  });

  it.each([
    ['a rating out of range', { rating: 6 }, 'rating'],
    ['an unknown recommendation', { recommendation: 'meh' }, 'recommendation'],
    ['an unknown field', { stars: 3 }, 'stars'],
  ])('answers 400 VALIDATION_ERROR for %s', async (_kind, body, param) => {
    expectApiError(await mock.control('post', '/__control/inbound/reviews').send(body), 400, 'VALIDATION_ERROR', param);
  });

  it('answers 400 PLATFORM_NOT_SUPPORTED for an account that is not a page, 404 for an unknown one', async () => {
    expectApiError(await mock.control('post', '/__control/inbound/reviews').send({ accountId: world.account('instagram').id }), 400, 'PLATFORM_NOT_SUPPORTED', 'accountId');
    expectApiError(await mock.control('post', '/__control/inbound/reviews').send({ accountId: 'nobody' }), 404, 'NOT_FOUND', 'accountId');
  });
});
