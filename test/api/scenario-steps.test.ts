import { describe, expect, it } from 'vitest';
import { webhooksStore } from '../../src/api/webhooks/store.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { eventsOf } from '../helpers/accounts.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';
import { accountOn, advance, journalOf, scenarioSteps, workspaceWith } from '../helpers/scenarios.js';

/*
 * The timeline steps that play another capability's service: inbound comments,
 * messages, story replies and reviews, webhook delivery faults and posts made on the
 * network. Each checks its params with that service when the scenario loads; a step
 * that could never run fails the load at its line and changes nothing.
 */

const mock = useMock();

const timeline = (...lines: string[]) => ['timeline:', '  - at: PT1M', ...lines.map((line) => `    ${line}`)].join('\n');

describe('POST /__control/scenarios with a step the workspace cannot play', () => {
  it.each([
    ['inbound.comment', 'an unknown account', timeline('do: inbound.comment', 'account: mastodon'), 4, 14, 'account', /^no account "mastodon" in the workspace/],
    ['inbound.comment', 'a post that does not exist', timeline('do: inbound.comment', 'account: instagram', 'post: no-such-post'), 5, 11, 'post', /^No post with the network id 'no-such-post' of account '[^']+' is known to this workspace\. \(NOT_FOUND\)$/],
    ['inbound.comment', 'a network without comments', timeline('do: inbound.comment', 'account: pinterest'), 4, 14, 'account', /^You cannot receive comments on a post on pinterest .*\(PLATFORM_NOT_SUPPORTED\)$/],
    ['inbound.message', 'a network without an inbox', timeline('do: inbound.message', 'account: twitter', 'text: hello'), 4, 14, 'account', /^twitter has no inbox; .*\(PLATFORM_NOT_SUPPORTED\)$/],
    ['inbound.message', 'a text over the inbox limit', timeline('do: inbound.message', 'account: bluesky', `text: ${'x'.repeat(1001)}`), 5, 11, 'text', /^text is 1001 characters; bluesky .* allows at most 1000 here\. \(TEXT_TOO_LONG\)$/],
    ['inbound.story-reply', 'a network without stories', timeline('do: inbound.story-reply', 'account: bluesky'), 4, 14, 'account', /^bluesky has no stories; .*\(PLATFORM_NOT_SUPPORTED\)$/],
    ['inbound.review', 'an account that is not a page', timeline('do: inbound.review', 'account: instagram'), 4, 14, 'account', /^instagram has no page reviews; .*\(PLATFORM_NOT_SUPPORTED\)$/],
    ['inbound.review', 'a rating with a recommendation', timeline('do: inbound.review', 'recommendation: positive', 'rating: 4'), 5, 13, 'rating', /^A review has either a recommendation or a star rating, not both\. \(VALIDATION_ERROR\)$/],
    ['webhook.faults', 'a fail count without a status', timeline('do: webhook.faults', "webhook: '*'", 'faults:', '  failCount: 3'), 6, 18, 'faults.failCount', /^failCount needs failStatus: .*\(VALIDATION_ERROR\)$/],
    ['network.post', 'an unknown account', timeline('do: network.post', 'account: mastodon'), 4, 14, 'account', /^no account "mastodon" in the workspace/],
    ['network.post', 'a text over the network’s limit', timeline('do: network.post', 'account: threads', `text: ${'y'.repeat(501)}`), 5, 11, 'text', /^text is 501 characters; threads .* allows at most 500 here\. \(TEXT_TOO_LONG\)$/],
  ])('%s with %s answers 400 INVALID_SCENARIO at its line and column, and changes nothing', async (_kind, _what, yaml, line, column, field, reason) => {
    const { key } = await workspaceWith(mock, 'open-enumerations');
    await mock.call('get', '/v1/connections', key);
    const before = (await mock.control('get', '/__control/state', key)).text;
    const journal = await journalOf(mock, key);
    const res = await mock.control('post', '/__control/scenarios', key).send({ yaml });
    expectApiError(res, 400, 'INVALID_SCENARIO', 'yaml');
    expect(res.body.error.details).toEqual({ file: '<inline>', line, column, field: `timeline[0].${field}`, reason: expect.stringMatching(reason) });
    expect(res.body.error.message).toBe(`<inline>:${line}:${column}: timeline[0].${field}: ${res.body.error.details.reason}`);
    expect((await mock.control('get', '/__control/state', key)).text).toBe(before);
    expect(await journalOf(mock, key)).toEqual(journal);
  });

  it('names the ready-made file, line and column when its world lacks the account a step needs', async () => {
    const res = await mock.control('post', '/__control/workspaces').send({ scenario: 'inbox-automation', fixtures: false });
    expectApiError(res, 400, 'INVALID_SCENARIO', 'scenario');
    expect(res.body.error.message).toBe('scenarios/inbox-automation.yaml:16:14: timeline[0].account: no account "instagram": the workspace has no accounts (is "fixtures: false" set?)');
  });
});

describe('the steps at their time', () => {
  it('play the control plane’s inbound endpoints and the network side with the values written', async () => {
    const yaml = [
      'timeline:',
      "  - { at: PT5M, do: inbound.message, account: bluesky, username: lisbon-fan.bsky.social, text: 'Do you ship to Lisbon?' }",
      "  - { at: PT10M, do: inbound.review, account: facebook, rating: 2, text: 'Slow delivery.', reviewerName: Ana Lima }",
      "  - { at: PT15M, do: network.post, account: reddit, text: 'Ask us anything about roasting.' }",
    ].join('\n');
    const { key, id } = await workspaceWith(mock, yaml);
    const moved = await advance(mock, key, 'PT15M');
    expect(scenarioSteps(moved.ran).map((job) => [job.dueAt, job.label, job.ok])).toEqual([
      ['2026-03-02T09:05:00.000Z', 'inline: lisbon-fan.bsky.social writes to the bluesky inbox', true],
      ['2026-03-02T09:10:00.000Z', 'inline: a 2-star review of the facebook page', true],
      ['2026-03-02T09:15:00.000Z', 'inline: reddit account posts on the network itself', true],
    ]);

    const bluesky = await accountOn(mock, key, 'bluesky');
    const facebook = await accountOn(mock, key, 'facebook');
    const reddit = await accountOn(mock, key, 'reddit');
    const received = eventsOf(mock, id).filter((event) => ['conversation.started', 'message.received', 'review.new'].includes(event.event));
    expect(received.map((event) => [event.event, event.createdAt, event.data['accountId']])).toEqual([
      ['conversation.started', '2026-03-02T09:05:00.000Z', bluesky],
      ['message.received', '2026-03-02T09:05:00.000Z', bluesky],
      ['review.new', '2026-03-02T09:10:00.000Z', facebook],
    ]);
    expect(received[1]?.data['message']).toMatchObject({ text: 'Do you ship to Lisbon?' });
    const members = (received[0]?.data['conversation'] as { members: Array<{ username: string | null }> }).members;
    expect(members.map((member) => member.username)).toContain('lisbon-fan.bsky.social');

    const reviews = (await mock.call('get', `/v1/accounts/${facebook}/reviews`, key)).body.data;
    expect(reviews[0]).toEqual({ id: expect.any(String), recommendation: null, rating: 2, text: 'Slow delivery.', reviewerName: 'Ana Lima', createdAt: '2026-03-02T09:10:00.000Z' });

    const synced = await mock.call('post', `/v1/accounts/${reddit}/sync`, key).send({});
    expectStatus(synced, 200);
    expect(synced.body.data[0]).toMatchObject({ source: 'external', text: 'Ask us anything about roasting.', publishedAt: '2026-03-02T09:15:00.000Z', options: { title: expect.any(String) } });
  });

  it('sets the faults of every webhook for "*", and of the one named otherwise', async () => {
    const yaml = ['timeline:', "  - { at: PT1M, do: webhook.faults, webhook: '*', faults: { duplicate: true } }", '  - { at: PT2M, do: webhook.faults, webhook: second, faults: { failStatus: 500, failCount: 2 } }'].join('\n');
    const { key } = await workspaceWith(mock, yaml);
    const ids: string[] = [];
    for (const name of ['first', 'second']) {
      const res = await mock.call('post', '/v1/webhooks', key).send({ name, url: 'https://hooks.example/in', events: ['review.new'] });
      expectStatus(res, 201);
      ids.push(res.body.id as string);
    }
    const faultsOf = () => ids.map((webhookId) => webhooksStore.get(mock.server.registry.byApiKey(key) as Workspace).webhooks[webhookId]?.faults);
    await advance(mock, key, 'PT1M');
    expect(faultsOf()).toEqual([
      { duplicate: true, outOfOrder: false, delayMs: 0, failStatus: null, failRemaining: null },
      { duplicate: true, outOfOrder: false, delayMs: 0, failStatus: null, failRemaining: null },
    ]);
    await advance(mock, key, 'PT1M');
    expect(faultsOf()[1]).toEqual({ duplicate: false, outOfOrder: false, delayMs: 0, failStatus: 500, failRemaining: 2 });
    expect(faultsOf()[0]).toMatchObject({ duplicate: true });
  });

  describe('when what the step needs is gone by then', () => {
    it('reports the step as failed in the advance, with the service’s reason', async () => {
      const yaml = ['timeline:', '  - { at: PT1M, do: inbound.comment, account: instagram }', '  - { at: PT1M, do: webhook.faults, webhook: receiver, faults: {} }'].join('\n');
      const { key } = await workspaceWith(mock, yaml);
      const instagram = await accountOn(mock, key, 'instagram');
      expectStatus(await mock.call('delete', `/v1/accounts/${instagram}`, key), 200);
      const moved = await advance(mock, key, 'PT1M');
      expect(scenarioSteps(moved.ran).map((job) => [job.kind, job.ok, job.error])).toEqual([
        ['scenario.inbound.comment', false, `Account '${instagram}' was not found in this workspace.`],
        ['scenario.webhook.faults', false, 'no webhook has the id or name "receiver" when the step runs: create it after loading the scenario, before the step\'s time'],
      ]);
    });
  });
});
