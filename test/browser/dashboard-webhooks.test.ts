import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousAxeFindings } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { expectStatus, useMock } from '../helpers/mock.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * The dashboard's Webhooks view in Debian's Chromium, driven as a user would (issue 20, view 2):
 * on a workspace picked in the switcher, a receiver that answers 503 shows its failed attempts
 * and the next retry, a retry the virtual clock runs shows without a reload, Redeliver succeeds
 * once the receiver recovers, Send test event adds a delivery whose signature is the one the
 * receiver got, and axe-core finds nothing serious. Time moves only by the control plane's clock.
 */

let browser: Browser | undefined;
const mock = useMock({}, { listen: true });
let receiver: WebhookReceiver | undefined;

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

/** The timeline of the delivery shown, row by row: attempt, status, duration (the instant left out). */
async function timeline(page: Page): Promise<string[][]> {
  const rows = page.getByRole('table', { name: /^Timeline/ }).locator('tbody tr');
  const cells = await rows.evaluateAll((trs: Array<{ children: ArrayLike<{ textContent: string | null }> }>) => trs.map((tr) => Array.from(tr.children, (cell) => cell.textContent ?? '')));
  return cells.map(([attempt = '', , outcome = '', duration = '']) => [attempt, outcome, duration.endsWith(' ms') ? 'ms' : duration]);
}

describe('the Webhooks view in Chromium', () => {
  it('shows failed attempts and the next retry, redelivers once the receiver recovers, sends a test event', async () => {
    receiver = await WebhookReceiver.start();
    receiver.answerAlways(503);
    const created = await mock.control('post', '/__control/workspaces').send({});
    expectStatus(created, 201);
    const { workspaceId, apiKey } = created.body as { workspaceId: string; apiKey: string };
    const hook = await mock.call('post', '/v1/webhooks', apiKey).send({ name: 'CRM', url: receiver.url, events: ['account.connected'], secret: 'whsec_dashboard_view' });
    expectStatus(hook, 201);
    const webhookId = (hook.body as { id: string }).id;
    const connections = await mock.call('get', '/v1/connections', apiKey);
    const accountId = (connections.body as { connections: Array<{ id: string }> }).connections[0]?.id ?? '';

    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${mock.url}/__dashboard#/webhooks`);
    await page.getByRole('heading', { level: 2, name: 'Webhooks', exact: true }).waitFor();
    const picker = page.getByLabel('Workspace', { exact: true });
    await picker.locator(`option[value="${workspaceId}"]`).waitFor({ state: 'attached' });
    await picker.selectOption(workspaceId);
    const card = page.getByRole('article', { name: 'CRM' });
    await card.waitFor();
    expect(await card.locator('dd').nth(1).textContent()).toBe('enabled');
    await page.getByText('Live ·').waitFor();

    // An event the receiver refuses: attempt 1 failed with 503, a retry due a minute later, live from the stream.
    const emitted = await mock.control('post', '/__control/events', apiKey).send({ event: 'account.connected', objectId: accountId });
    expectStatus(emitted, 201);
    await receiver.waitFor(1);
    const row = card.locator('tbody tr').filter({ hasText: 'account.connected' });
    await expect.poll(() => row.locator('td').allTextContents()).toEqual(['pending', '1', '2026-03-02T09:00:00.000Z', '2026-03-02T09:01:00.000Z']);
    await row.getByRole('button', { name: 'account.connected' }).click();
    expect(await timeline(page)).toEqual([
      ['#1', '503', 'ms'],
      ['next', 'retry due', '—'],
    ]);

    // The virtual clock runs the retry, which fails too: shown without a reload, the next one five minutes on.
    expectStatus(await mock.control('post', '/__control/clock/advance', apiKey).send({ by: 'PT1M' }), 200);
    await expect.poll(() => timeline(page)).toEqual([
      ['#1', '503', 'ms'],
      ['#2', '503', 'ms'],
      ['next', 'retry due', '—'],
    ]);
    expect(await row.locator('td').last().textContent()).toBe('2026-03-02T09:06:00.000Z');

    // The receiver recovers: Redeliver succeeds, the retry due is cancelled.
    receiver.answerAlways(200);
    await card.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => timeline(page)).toEqual([
      ['#1', '503', 'ms'],
      ['#2', '503', 'ms'],
      ['#3', '200', 'ms'],
    ]);
    expect(await row.locator('td').allTextContents()).toEqual(['succeeded', '3', '2026-03-02T09:00:00.000Z', '—']);
    expect(receiver.requests).toHaveLength(3);

    // Send test event: a delivery of its own, shown with the headers the receiver got.
    await card.getByRole('button', { name: 'Send test event' }).click();
    const test = card.locator('tbody tr').filter({ hasText: 'webhook.test (test)' });
    await expect.poll(() => test.locator('td').first().textContent()).toBe('succeeded');
    await expect.poll(() => timeline(page)).toEqual([['#1', '200', 'ms']]);
    const sent = receiver.requests[3];
    expect(sent?.json.event).toBe('webhook.test');
    const headers = card.getByRole('region', { name: /^Delivery webhook\.test/ }).locator('dd');
    await expect.poll(() => headers.allTextContents()).toEqual([sent?.headers['x-gateway-event'], sent?.headers['x-gateway-event-id'], '1', sent?.headers['x-gateway-signature']]);
    expect(await card.getByLabel(/^Payload of delivery/).textContent()).toBe(JSON.stringify(sent?.json, null, 2));
    expect((await mock.call('get', `/v1/webhooks/${webhookId}/deliveries`, apiKey).then((res) => res.body as { data: unknown[] })).data).toHaveLength(2);

    // Keyboard: the deliveries are buttons reached with Tab and opened with Enter.
    await row.getByRole('button', { name: 'account.connected' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => timeline(page)).toHaveLength(3);

    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 20_000);
});
