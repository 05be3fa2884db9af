import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { createFrozenWorkspace, openViewOn } from '../helpers/dashboard-page.js';
import { expectStatus, useMock } from '../helpers/mock.js';

/*
 * The dashboard's Limits view in Chromium, driven as a user would (issue 20, view 5: "a gauge
 * drops as requests are made"): on a workspace picked in the switcher, the requests gauge falls
 * by one per API call without a reload, Drain empties it so the API answers 429, Refill restores
 * it, the velocity table lists the accounts GET /__control/limits lists, axe-core finds
 * nothing serious, and a refused Drain shows the envelope's message. The workspace's clock is frozen, so no call ages out during the test.
 */

let browser: Browser | undefined;
const mock = useMock({}, { listen: true });

afterAll(async () => {
  await browser?.close();
});

/** The requests gauge's value and maximum, as the `<meter>` holds them. */
function requestsGauge(page: Page): Promise<{ value: number; max: number }> {
  return page
    .getByRole('meter', { name: /^Requests/ })
    .evaluate((meter) => ({ value: (meter as unknown as { value: number }).value, max: (meter as unknown as { max: number }).max }));
}

describe('the Limits view in Chromium', () => {
  it('drops the requests gauge as the picked workspace is called, drains it to a 429, refills it, passes axe, and shows the message of a refused call', async () => {
    const { workspaceId, apiKey } = await createFrozenWorkspace(mock, '2026-03-05T09:00:00.000Z');
    browser = await launchChromium();
    const page = await openViewOn(browser, mock.url, 'Limits', workspaceId);
    await page.getByRole('status').filter({ hasText: /^Live/ }).waitFor({ timeout: 5000 });

    const limits = (await mock.control('get', '/__control/limits', apiKey)).body as { budgets: { requests: { limit: number; remaining: number } }; velocity: Array<{ accountId: string }> };
    await expect.poll(() => requestsGauge(page)).toEqual({ value: limits.budgets.requests.remaining, max: limits.budgets.requests.limit });
    const before = limits.budgets.requests.remaining;
    // One velocity row per account the control plane reports, no more.
    expect(await page.locator('table.limits-velocity tbody tr').evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { account: string } }).dataset.account))).toEqual(limits.velocity.map((row) => row.accountId));

    // N calls with the workspace's key: the gauge falls by N, live.
    const calls = 5;
    for (let i = 0; i < calls; i++) expectStatus(await mock.call('get', '/v1/connections', apiKey), 200);
    await expect.poll(() => requestsGauge(page)).toEqual({ value: before - calls, max: limits.budgets.requests.limit });
    expect(await page.locator('[data-budget="requests"] .limits-text').textContent()).toBe(`${before - calls} of ${limits.budgets.requests.limit} left (${calls} used in the last 60 s)`);

    // Drain: the gauge is empty and the API refuses the next call.
    await page.getByRole('button', { name: 'Drain requests' }).click();
    await expect.poll(async () => (await requestsGauge(page)).value).toBe(0);
    const refused = await mock.call('get', '/v1/connections', apiKey);
    expectStatus(refused, 429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });

    // Refill, from the keyboard: full again, and the API answers.
    await page.getByRole('button', { name: 'Refill requests' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await requestsGauge(page)).value).toBe(limits.budgets.requests.limit);
    expectStatus(await mock.call('get', '/v1/connections', apiKey), 200);
    await expect.poll(async () => (await requestsGauge(page)).value).toBe(limits.budgets.requests.limit - 1);
    // Only the picked workspace was drained and called (x-workspace-id).
    expect((await mock.control('get', '/__control/limits')).body).toMatchObject({ budgets: { requests: { count: 0 } } });

    expect(await seriousAxeFindings(page)).toEqual([]);

    // A refused call shows the envelope's message: the workspace deleted behind the page's back.
    expectStatus(await mock.control('delete', `/__control/workspaces/${workspaceId}`), 200);
    await page.getByRole('button', { name: 'Drain requests' }).click();
    await expect.poll(() => page.getByRole('main').getByRole('alert').textContent()).toContain(`No workspace has the id in x-workspace-id ('${workspaceId}')`);
  }, 20_000);
});
