import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withEventCatalog } from '../../src/docs/webhooks-doc.js';
import { EVENT_NAMES } from '../../src/events/catalog.js';
import { packagePath } from '../../src/lib/package-root.js';
import { CALLBACK_EVENTS, exampleBody, payloadProblems } from '../helpers/webhook-contract.js';

describe('the webhook events of openapi.yaml', () => {
  it('documents every event of the catalog as a callback, and no other', () => {
    expect([...CALLBACK_EVENTS].sort()).toEqual([...EVENT_NAMES].sort());
  });

  it.each(EVENT_NAMES.map((name) => [name]))('%s: the example conforms to its callback schema', (name) => {
    const example = exampleBody(name);
    expect(example.event).toBe(name);
    expect(payloadProblems(example)).toEqual([]);
  });

  it('refuses a body whose data does not fit the event', () => {
    const body = { ...exampleBody('post.published'), data: exampleBody('account.connected').data };
    expect(payloadProblems(body)).not.toEqual([]);
  });
});

describe('docs/webhooks.md', () => {
  const page = readFileSync(packagePath('docs', 'webhooks.md'), 'utf8');

  it('has the event catalog that npm run webhooks:doc generates from openapi.yaml', () => {
    expect(page, 'docs/webhooks.md is stale: run npm run webhooks:doc').toBe(withEventCatalog(page));
  });

  it('shows an example of each of the 22 events that conforms to the contract', () => {
    const examples = [...page.matchAll(/^### `([a-z.]+)`\n[\s\S]*?```json\n([\s\S]*?)\n```/gm)].map((match) => [match[1], JSON.parse(match[2] ?? '')] as const);
    expect(examples.map(([name]) => name)).toEqual([...EVENT_NAMES]);
    for (const [name, body] of examples) expect(payloadProblems(body), name).toEqual([]);
  });
});
