import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { createFrozenWorkspace, openViewOn } from '../helpers/dashboard-page.js';
import { expectStatus, type TestMock, useMock } from '../helpers/mock.js';

/*
 * The dashboard's State view in Debian's Chromium, driven as a user would (issue 20, view 6): on a
 * workspace picked in the switcher, a scheduled post shows published without a reload once the
 * clock is advanced, Expire changes an account's status as the API then reports it, an inbound
 * comment composed in the view is listed by the API (one too long shows the envelope's message), the
 * filter narrows the tables, and axe-core finds nothing serious.
 */

let browser: Browser | undefined;
const mock = useMock({}, { listen: true });

afterAll(async () => {
  await browser?.close();
});

interface Connection {
  id: string;
  platform: string;
  handle: string;
  status: string;
}

async function connections(testMock: TestMock, apiKey: string): Promise<Connection[]> {
  const res = await testMock.call('get', '/v1/connections', apiKey);
  expectStatus(res, 200);
  return (res.body as { connections: Connection[] }).connections;
}

describe('the State view in Chromium', () => {
  it('shows a scheduled post published by an advance, expires an account, composes an inbound comment', async () => {
    const { workspaceId, apiKey } = await createFrozenWorkspace(mock, '2026-03-05T09:00:00.000Z');
    const accounts = await connections(mock, apiKey);
    const bluesky = accounts.find((account) => account.platform === 'bluesky');
    const instagram = accounts.find((account) => account.platform === 'instagram');
    if (!bluesky || !instagram) throw new Error('the seeded world has a bluesky and an instagram account');
    browser = await launchChromium();
    const page = await openViewOn(browser, mock.url, 'State', workspaceId);

    // A post scheduled half an hour ahead shows scheduled, live from the stream.
    const created = await mock.call('post', '/v1/posts', apiKey).send({ text: 'Doors open at ten.', destinations: [{ connectionId: bluesky.id }], scheduledFor: '2026-03-05T09:30:00', timezone: 'UTC' });
    expectStatus(created, 201);
    const postId = (created.body as { post: { id: string } }).post.id;
    const postStatus = page.locator(`tr[data-post="${postId}"] .post-status`);
    await expect.poll(() => postStatus.textContent()).toBe('scheduled');

    // The clock's advance publishes it: the view shows it without a reload, destination included.
    expectStatus(await mock.control('post', '/__control/clock/advance', apiKey).send({ by: 'PT1H' }), 200);
    await expect.poll(() => postStatus.textContent()).toBe('published');
    expect(await page.locator(`tr[data-post="${postId}"] li`).textContent()).toBe(`bluesky ${bluesky.handle}: published`);

    // Expire, from the keyboard: the API reports the account expired, and the view shows it.
    const expire = page.getByRole('button', { name: `Expire instagram ${instagram.handle}` });
    await expire.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator(`tr[data-account="${instagram.id}"] .account-status`).textContent()).toBe('expired');
    expect((await connections(mock, apiKey)).find((account) => account.id === instagram.id)?.status).toBe('expired');
    expect(await page.getByRole('button', { name: `Reconnect instagram ${instagram.handle}` }).isEnabled()).toBe(true);

    // An inbound comment on the bluesky account's newest published post (the one just published).
    await page.getByLabel('Account for the comment').selectOption(bluesky.id);
    await page.getByLabel('Text of the comment').fill('Is there parking nearby?');
    await page.getByRole('button', { name: 'Send comment' }).click();
    await expect.poll(() => page.locator('main .notice').textContent()).toContain('Inbound comment added.');
    const comments = await mock.call('get', `/v1/comments?post=${postId}`, apiKey);
    expectStatus(comments, 200);
    expect((comments.body as { data: Array<{ text: string }> }).data.map((comment) => comment.text)).toContain('Is there parking nearby?');

    // A comment longer than bluesky takes: the envelope's message, and nothing added.
    await page.getByLabel('Text of the comment').fill('x'.repeat(400));
    await page.getByLabel('Text of the comment').press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/\b300\b/);

    // The filter narrows both tables: the post's id keeps it and no account.
    await page.getByLabel('Filter accounts and posts').fill(postId);
    await expect.poll(() => page.locator('tr[data-post]').count()).toBe(1);
    expect(await page.locator('tr[data-account]').count()).toBe(0);

    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 20_000);
});
