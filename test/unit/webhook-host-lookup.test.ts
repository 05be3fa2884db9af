import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { hostLookup, NOT_FOUND_TTL_MS } from '../../src/api/webhooks/host-lookup.js';

type Answer = { error: NodeJS.ErrnoException | null; address?: string };

/** A resolver that answers from a table and counts what it is asked. */
function resolver(answers: Record<string, Answer['error'] | string>) {
  const asked: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    asked.push(hostname);
    const answer = answers[hostname];
    if (typeof answer === 'string') callback(null, answer, 4);
    else callback(answer ?? null, '', undefined);
  };
  return { lookup, asked, answers };
}

function failure(code: string, hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, errno: -3008, syscall: 'getaddrinfo', hostname });
}

function ask(lookup: LookupFunction, hostname: string): Promise<Answer> {
  return new Promise((resolve) => lookup(hostname, {}, (error, address) => resolve({ error, address: typeof address === 'string' ? address : undefined })));
}

describe('the webhook sender’s host lookup', () => {
  it('remembers for its TTL that a name does not exist, answering as the resolver did without asking it', async () => {
    let now = 1_000;
    const { lookup, asked } = resolver({ 'gone.example': failure('ENOTFOUND', 'gone.example') });
    const cached = hostLookup({ now: () => now, lookup });

    const first = await ask(cached, 'gone.example');
    const second = await ask(cached, 'gone.example');
    expect(asked).toEqual(['gone.example']);
    expect(second.error).toMatchObject({ code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: 'gone.example', message: first.error?.message });
    // Each caller gets its own error object.
    expect(second.error).not.toBe(first.error);

    now += NOT_FOUND_TTL_MS - 1;
    await ask(cached, 'gone.example');
    expect(asked).toHaveLength(1);
    now += 1;
    await ask(cached, 'gone.example');
    expect(asked).toHaveLength(2);
  });

  it('asks again every time for a name that resolves or fails for another reason, and forgets a name once it resolves', async () => {
    const now = 0;
    const { lookup, asked, answers } = resolver({ 'ok.example': '192.0.2.1', 'flaky.example': failure('EAI_AGAIN', 'flaky.example'), 'back.example': failure('ENOTFOUND', 'back.example') });
    const cached = hostLookup({ now: () => now, ttlMs: 10, lookup });

    expect((await ask(cached, 'ok.example')).address).toBe('192.0.2.1');
    await ask(cached, 'ok.example');
    await ask(cached, 'flaky.example');
    await ask(cached, 'flaky.example');
    expect(asked).toEqual(['ok.example', 'ok.example', 'flaky.example', 'flaky.example']);

    await ask(cached, 'back.example');
    expect((await ask(cached, 'back.example')).error?.code).toBe('ENOTFOUND');
    expect(asked.filter((name) => name === 'back.example')).toHaveLength(1);
    answers['back.example'] = '192.0.2.2';
    // Still known not to exist until the TTL ends; then it resolves and is not remembered.
    const later = hostLookup({ now: () => now, ttlMs: 0, lookup });
    await ask(later, 'back.example');
    expect((await ask(later, 'back.example')).address).toBe('192.0.2.2');
  });

  it('remembers at most a thousand names, forgetting the oldest first', async () => {
    const names = Array.from({ length: 1_001 }, (_, i) => `n${i}.example`);
    const { lookup, asked } = resolver(Object.fromEntries(names.map((name) => [name, failure('ENOTFOUND', name)])));
    const cached = hostLookup({ now: () => 0, lookup });
    for (const name of names) await ask(cached, name);
    await ask(cached, 'n1.example');
    await ask(cached, 'n0.example');
    expect(asked.slice(1_001)).toEqual(['n0.example']);
  });
});
