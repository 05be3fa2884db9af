import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { createFrozenWorkspace, openViewOn } from '../helpers/dashboard-page.js';
import { expectStatus, type TestMock, useMock } from '../helpers/mock.js';

/*
 * The dashboard's Clock view in Debian's Chromium, driven as a user would (issue 20, view 3):
 * on a workspace picked in the switcher, a scheduled post's job is listed as due, Advance runs it and lists what ran,
 * Freeze and Resume toggle the clock, an error shows the API's message, and axe-core finds
 * nothing serious. The default workspace stays frozen at 2026-03-02T09:00:00Z (test/helpers/mock.ts).
 */

let browser: Browser | undefined;
const mock = useMock({}, { listen: true });

afterAll(async () => {
  await browser?.close();
});

/** The view's reading of one field ("Virtual now", "State", "Pending jobs", "Next job due"). */
function reading(page: Page, name: string) {
  return page.locator('.clock-reading dt', { hasText: name }).locator('xpath=following-sibling::dd[1]');
}

describe('the Clock view in Chromium', () => {
  it('advances the picked workspace, lists the scheduled post it published, freezes and resumes', async () => {
    // A second workspace, its clock three days ahead of the default one's: the view shows and moves the one picked.
    const { workspaceId, apiKey } = await createFrozenWorkspace(mock, '2026-03-05T09:00:00.000Z');
    browser = await launchChromium();
    const page = await openViewOn(browser, mock.url, 'clock', workspaceId);
    await expect.poll(() => reading(page, 'Virtual now').textContent()).toBe('2026-03-05T09:00:00Z');
    expect(await reading(page, 'State').textContent()).toMatch(/^Frozen/);
    const pendingBefore = Number(await reading(page, 'Pending jobs').textContent());

    // A post scheduled half an hour ahead: its job shows in the count, live, from the event stream.
    const post = await mock.call('post', '/v1/posts', apiKey).send({ text: 'Doors open at ten.', destinations: [{ connectionId: await firstConnection(mock, apiKey) }], scheduledFor: '2026-03-05T09:30:00', timezone: 'UTC' });
    expectStatus(post, 201);
    const postId = (post.body as { post: { id: string } }).post.id;
    await expect.poll(() => reading(page, 'Pending jobs').textContent()).toBe(String(pendingBefore + 1));
    // And in the list of jobs due next, at its instant, in the order an advance would run it.
    const due = page.getByTestId('due-jobs').getByRole('row').filter({ hasText: postId });
    expect(await due.allTextContents()).toEqual([`2026-03-05T09:30:00Zin 30 minpost.startfire scheduled post ${postId}`]);
    const listed = (await mock.control('get', '/__control/clock/jobs?limit=20', apiKey)).body as { data: Array<{ label: string }> };
    expect(await page.getByTestId('due-jobs').locator('tbody tr td:last-child').allTextContents()).toEqual(listed.data.map((job) => job.label));

    // The presets fill the duration field; Advance moves the clock and lists what ran.
    await page.getByRole('button', { name: '1 day' }).click();
    expect(await page.getByLabel('Duration (ISO 8601)').inputValue()).toBe('P1D');
    await page.getByRole('button', { name: '1 h' }).click();
    expect(await page.getByLabel('Duration (ISO 8601)').inputValue()).toBe('PT1H');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.getByRole('heading', { name: 'What ran' }).waitFor();
    // The view draws what ran first, then reads the clock again: the reading can lag the heading (it did once under load).
    await expect.poll(() => reading(page, 'Virtual now').textContent()).toBe('2026-03-05T10:00:00Z');
    const ran = page.getByRole('table').getByRole('row').filter({ hasText: postId });
    expect(await ran.allTextContents()).toEqual([expect.stringMatching(/^2026-03-05T09:30:00Zpost\.start.*ok$/), expect.stringMatching(/post\.publish-destination.*ok$/)]);
    // What ran is no longer due.
    await expect.poll(() => due.count()).toBe(0);

    // Published, as the API says; and only the picked workspace moved (x-workspace-id).
    const published = await mock.call('get', `/v1/posts/${postId}`, apiKey);
    expect((published.body as { post: { status: string } }).post.status).toBe('published');
    expect((await mock.control('get', '/__control/clock')).body).toMatchObject({ now: '2026-03-02T09:00:00.000Z' });

    // A duration the API refuses: its envelope's message, and the clock did not move.
    await page.getByLabel('Duration (ISO 8601)').fill('P1M');
    await page.getByLabel('Duration (ISO 8601)').press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('by must be an ISO 8601 duration without years or months');
    expect(await reading(page, 'Virtual now').textContent()).toBe('2026-03-05T10:00:00Z');

    // Resume, then Freeze: the state shown follows the workspace's clock.
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => reading(page, 'State').textContent()).toMatch(/^Running/);
    expect((await mock.control('get', '/__control/clock', apiKey)).body).toMatchObject({ frozen: false });
    await page.getByRole('button', { name: 'Freeze' }).click();
    await expect.poll(() => reading(page, 'State').textContent()).toMatch(/^Frozen/);
    expect((await mock.control('get', '/__control/clock', apiKey)).body).toMatchObject({ frozen: true });

    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 20_000);
});

async function firstConnection(testMock: TestMock, apiKey: string): Promise<string> {
  const res = await testMock.call('get', '/v1/connections', apiKey);
  expectStatus(res, 200);
  return (res.body as { connections: Array<{ id: string }> }).connections[0]?.id ?? '';
}
