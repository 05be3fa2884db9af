import { describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, useMock } from '../helpers/mock.js';

// No fixture world: its scheduled and in-flight posts and its accounts' token expiries would put jobs on the clock.
const mock = useMock({ fixtures: false });

const at = (ms: number) => new Date(Date.parse(TEST_CLOCK) + ms).toISOString();

describe('GET /__control/health', () => {
  it('answers ok with the version', async () => {
    const res = await mock.control('get', '/__control/health');
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'ok', version: expect.any(String), workspaces: 1 });
  });
});

describe('the virtual clock', () => {
  it('starts where it was told, frozen', async () => {
    const res = await mock.control('get', '/__control/clock');
    expectStatus(res, 200);
    expect(res.body).toEqual({ now: TEST_CLOCK, frozen: true, pendingJobs: 0, nextDueAt: null });
  });

  it('advances by an ISO 8601 duration and by milliseconds', async () => {
    const byDuration = await mock.control('post', '/__control/clock/advance').send({ by: 'PT2H' });
    expectStatus(byDuration, 200);
    expect(byDuration.body).toMatchObject({ from: TEST_CLOCK, now: at(2 * 3600_000), ran: [] });
    const byMs = await mock.control('post', '/__control/clock/advance').send({ ms: 1500 });
    expect(byMs.body.now).toBe(at(2 * 3600_000 + 1500));
  });

  it('lists the first 1,000 jobs of a long move and counts them all', async () => {
    const created = await mock.control('post', '/__control/workspaces').send({ clock: { frozen: true } });
    const moved = await mock.control('post', '/__control/clock/advance', created.body.apiKey).send({ by: 'P200D' });
    expectStatus(moved, 200);
    expect(moved.body.ran).toHaveLength(1000);
    expect(moved.body.ranTotal).toBeGreaterThan(1000);
    const short = await mock.control('post', '/__control/clock/advance', created.body.apiKey).send({ by: 'PT1M' });
    expect(short.body.ranTotal).toBe(short.body.ran.length);
  });

  it('sets forward and refuses to go back', async () => {
    const target = '2026-03-05T00:00:00.000Z';
    const res = await mock.control('post', '/__control/clock/set').send({ to: target });
    expectStatus(res, 200);
    expect(res.body.now).toBe(target);
    expectApiError(await mock.control('post', '/__control/clock/set').send({ to: '2026-03-01T00:00:00Z' }), 400, 'VALIDATION_ERROR', 'to');
    expect((await mock.control('get', '/__control/clock')).body.now).toBe(target);
  });

  it.each([
    [{ by: '2 hours' }, 'by'],
    [{ by: 'P1M' }, 'by'],
    [{ ms: -5 }, 'ms'],
    [{}, 'body'],
  ])('refuses %j', async (body, param) => {
    const res = await mock.control('post', '/__control/clock/advance').send(body);
    expectApiError(res, 400, 'VALIDATION_ERROR');
    if (param !== 'body') expect(res.body.error.param).toBe(param);
  });

  it('runs with the wall clock once resumed and stands still once frozen', async () => {
    const resumed = await mock.control('post', '/__control/clock/resume');
    expect(resumed.body.frozen).toBe(false);
    const frozen = await mock.control('post', '/__control/clock/freeze');
    expect(frozen.body.frozen).toBe(true);
    const a = await mock.control('get', '/__control/clock');
    const b = await mock.control('get', '/__control/clock');
    expect(a.body.now).toBe(b.body.now);
  });

  it('reads the workspace named by the key', async () => {
    const { body } = await mock.control('post', '/__control/workspaces').send({ clock: { start: '2030-01-01T00:00:00Z', frozen: true } });
    expect((await mock.control('get', '/__control/clock', body.apiKey)).body.now).toBe('2030-01-01T00:00:00.000Z');
    expectApiError(await mock.control('get', '/__control/clock', 'sgw_test_unknown'), 401, 'UNAUTHORIZED');
    expect((await mock.control('get', '/__control/clock', DEFAULT_API_KEY)).body.now).not.toBe('2030-01-01T00:00:00.000Z');
  });
});

describe('with --control-token', () => {
  it('requires x-control-token (or a workspace key) on every control call but the health check', async () => {
    const guarded = await startMock({ controlToken: 'let-me-in' });
    expectApiError(await guarded.control('get', '/__control/clock'), 401, 'UNAUTHORIZED');
    expectStatus(await guarded.control('get', '/__control/clock').set('x-control-token', 'let-me-in'), 200);
    expectStatus(await guarded.control('get', '/__control/health'), 200);
    expectApiError(await guarded.control('get', '/__control/health').set('x-control-token', 'let-me-out'), 401, 'UNAUTHORIZED');
    await guarded.close();
  });
});

describe('GET /__control/clock/jobs', () => {
  async function workspaceWithTimeline() {
    const yaml = ['name: jobs', 'timeline:', '  - { at: PT2H, do: network.outage, platform: tiktok, for: PT30M }', '  - { at: PT1H, do: network.outage, platform: youtube, for: PT10M }'].join('\n');
    const created = await mock.control('post', '/__control/workspaces').send({ fixtures: false, scenario: yaml, clock: { frozen: true } });
    expectStatus(created, 201);
    return created.body.apiKey as string;
  }

  it('lists the jobs due next in the order they will run, with how many wait', async () => {
    const key = await workspaceWithTimeline();
    const clock = await mock.control('get', '/__control/clock', key);
    const res = await mock.control('get', '/__control/clock/jobs', key);
    expectStatus(res, 200);
    expect(res.body.total).toBe(clock.body.pendingJobs);
    expect(res.body.data).toHaveLength(clock.body.pendingJobs);
    expect(res.body.data[0]).toMatchObject({ dueAt: clock.body.nextDueAt, kind: expect.any(String), label: expect.stringContaining('youtube') });
    const dueAts = res.body.data.map((job: { dueAt: string }) => job.dueAt);
    expect(dueAts).toEqual([...dueAts].sort());
    expect(res.body.data.at(-1).label).toContain('tiktok');
  });

  it('answers the first ones only with a limit, and drops the jobs an advance ran', async () => {
    const key = await workspaceWithTimeline();
    const all = (await mock.control('get', '/__control/clock/jobs', key)).body;
    const first = await mock.control('get', '/__control/clock/jobs?limit=1', key);
    expect(first.body).toEqual({ data: [all.data[0]], total: all.total });
    const moved = await mock.control('post', '/__control/clock/set', key).send({ to: all.data[0].dueAt });
    expect(moved.body.ran.map((job: { id: string }) => job.id)).toContain(all.data[0].id);
    const after = (await mock.control('get', '/__control/clock/jobs', key)).body;
    expect(after.data.map((job: { id: string }) => job.id)).not.toContain(all.data[0].id);
    expect(after.total).toBe(after.data.length);
  });

  it.each(['0', '1001', 'ten'])('refuses limit=%s naming it', async (limit) => {
    expectApiError(await mock.control('get', `/__control/clock/jobs?limit=${limit}`), 400, 'VALIDATION_ERROR', 'limit');
  });
});
