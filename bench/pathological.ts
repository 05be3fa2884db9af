/**
 * `npm run bench:patterns`: how long a hostile tenant's rules can hold the server's
 * event loop, and so every other workspace. The mock runs in a child process that
 * watches its own event loop (monitorEventLoopDelay); this process plays two clients.
 * The attacker loads the worst rules we know of (patterns that backtrack on RegExp,
 * patterns whose automaton explodes, sized so RE2 may run them on the whole text, globs
 * full of `*` and `**`, many rules, the most matchers a rule takes) and sends requests
 * at the server's limits (a 16 KiB header block, an 8 KiB request target, a 1 MiB
 * body); meanwhile the innocent workspace asks GET /v1/connections over and over.
 * Reported per attack: the longest stall of the server's event loop while the rules
 * load and while the requests run, the innocent's slowest answer and the attacker's.
 *
 * BENCH_HOSTILE_REQUESTS (20 per attack) changes it. Prints a Markdown table.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { RE2JS } from 're2js';
import { MATCH_BUDGET_UNITS, MAX_PROGRAM_SIZE } from '../src/scenarios/matching.js';
import { createMockServer, DEFAULT_API_KEY } from '../src/server.js';

const REQUESTS = Number(process.env.BENCH_HOSTILE_REQUESTS ?? 20);
/** A header value that, with the request line and the other headers, stays under the server's 16 KiB. */
const HEADER_CHARS = 15_000;
/** A path that stays under the server's 8 KiB request target. */
const PATH_CHARS = 8_000;
const BODY_CHARS = 1_000_000;
const SCRIPTED = { error: { status: 400, code: 'VALIDATION_ERROR', message: 'Scripted.' } };

type ServerMessage = { type: 'listening'; base: string } | { type: 'stall'; maxMs: number };
type ClientMessage = { type: 'watch' } | { type: 'read' };

/** The child: the mock, and a watch on its own event loop the parent starts and reads between phases. */
async function serve(): Promise<void> {
  const server = await createMockServer({ seed: 1, rateLimit: false });
  const base = await server.listen(0, '127.0.0.1');
  let histogram = monitorEventLoopDelay({ resolution: 1 });
  process.on('message', (message: ClientMessage) => {
    if (message.type === 'watch') {
      histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      process.send?.({ type: 'stall', maxMs: 0 } satisfies ServerMessage);
    } else {
      histogram.disable();
      process.send?.({ type: 'stall', maxMs: histogram.max / 1e6 } satisfies ServerMessage);
    }
  });
  process.on('disconnect', () => void server.close().then(() => process.exit(0)));
  process.send?.({ type: 'listening', base } satisfies ServerMessage);
}

/** Letters a and b drawn from a seed: every new text walks the automaton into states it has not built yet. */
function abText(length: number, seed: number): string {
  let x = seed;
  const letters: string[] = [];
  for (let i = 0; i < length; i++) {
    x = (x * 1_103_515_245 + 12_345) & 0x7fff_ffff;
    letters.push(x & 1024 ? 'a' : 'b');
  }
  return letters.join('');
}

const programSize = (source: string) => RE2JS.compile(RE2JS.translateRegExp(source)).programSize();

/** The largest `template(n)` whose RE2 program is at most `size` instructions. */
function largest(template: (n: number) => string, size: number): string {
  let n = 1;
  while (n < 1000 && programSize(template(n + 1)) <= size) n++;
  return template(n);
}

/** The longest text the request's matching budget lets a pattern read whole. */
const textFor = (source: string) => Math.floor(MATCH_BUDGET_UNITS / programSize(source)) - 1;

const explosion = (n: number) => `(?:a|b)*a(?:a|b){${n}}c`;
const twoDots = (n: number) => `a.{${n}}a.{${n}}x|c$`;
/** The biggest explosion pattern RE2 may run on a whole header, and the biggest the mock takes at all. */
const headerExplosion = largest(explosion, Math.floor(MATCH_BUDGET_UNITS / (HEADER_CHARS + 1)));
const headerDots = largest(twoDots, Math.floor(MATCH_BUDGET_UNITS / (HEADER_CHARS + 1)));
const biggestExplosion = largest(explosion, MAX_PROGRAM_SIZE);
const headerRule = (matches: string, id?: string) => ({ ...(id !== undefined && { id }), match: { operationId: 'listConnections', headers: [{ name: 'x-bench', matches }] }, then: SCRIPTED });
const bodyRule = (matches: string) => ({ match: { operationId: 'createPost', body: [{ pointer: '/text', matches }] }, then: SCRIPTED });

interface Request {
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Attack {
  name: string;
  rules: Array<Record<string, unknown>>;
  /** The mock refuses the rules (400): only loading them is measured. */
  refused?: boolean;
  /** The attacker's n-th request. */
  request(n: number): Request;
}

const headerRequest = (value: string): Request => ({ path: '/v1/connections', headers: { 'x-bench': value } });
const postRequest = (text: string): Request => ({ path: '/v1/posts', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });

const attacks: Attack[] = [
  {
    name: 'no rule (the floor: the same 15,000-character header, no pattern to run)',
    rules: [],
    request: (n) => headerRequest(`${abText(HEADER_CHARS, n + 1)}c`),
  },
  {
    name: 'header `^(a+)+$` (8.5 s on RegExp), "aaa…ab" of 15,000 characters',
    rules: [headerRule('^(a+)+$')],
    request: () => headerRequest(`${'a'.repeat(HEADER_CHARS)}b`),
  },
  {
    name: `header \`${headerExplosion}\` (an automaton of 2^n states), a fresh a/b header of 15,000 characters each time`,
    rules: [headerRule(headerExplosion)],
    request: (n) => headerRequest(`${abText(HEADER_CHARS, n + 1)}c`),
  },
  {
    name: `header \`${headerDots}\`, a fresh a/b header each time`,
    rules: [headerRule(headerDots)],
    request: (n) => headerRequest(`${abText(HEADER_CHARS, n + 7)}c`),
  },
  {
    name: `body field \`(?:a|b)*a(?:a|b){…}c\` of ${MAX_PROGRAM_SIZE} instructions (the most), a fresh text of ${textFor(biggestExplosion)} characters (the most the budget runs it on)`,
    rules: [bodyRule(biggestExplosion)],
    request: (n) => postRequest(`${abText(textFor(biggestExplosion), n + 11)}c`),
  },
  {
    name: 'body field `^(a+)+$`, a 1 MiB "aaa…ab" (beyond the budget: not run)',
    rules: [bodyRule('^(a+)+$')],
    request: () => postRequest(`${'a'.repeat(BODY_CHARS)}b`),
  },
  {
    name: '50 rules, each the header explosion pattern',
    rules: Array.from({ length: 50 }, (_, i) => headerRule(headerExplosion, `explosion-${i}`)),
    request: (n) => headerRequest(`${abText(HEADER_CHARS, n + 13)}c`),
  },
  {
    name: 'one rule, 20 header matchers (the most a rule takes) of the header explosion pattern',
    rules: [{ match: { operationId: 'listConnections', headers: Array.from({ length: 20 }, () => ({ name: 'x-bench', matches: headerExplosion })) }, then: SCRIPTED }],
    request: (n) => headerRequest(`${abText(HEADER_CHARS, n + 17)}c`),
  },
  {
    name: 'one rule, 4 header matchers of 252 characters each (1,008: near the 1,024 a rule may hold), slow to compile',
    rules: [{ match: { operationId: 'listConnections', headers: Array.from({ length: 4 }, (_, i) => ({ name: 'x-bench', matches: `${'(?:a|b)'.repeat(35)}${'abcdefg'[i]}` })) }, then: SCRIPTED }],
    request: (n) => headerRequest(`${abText(HEADER_CHARS, n + 23)}c`),
  },
  {
    name: 'one rule whose 252-character pattern RE2 expands past the limit (`.{1,20}` × 36): refused',
    rules: [headerRule('.{1,20}'.repeat(36))],
    refused: true,
    request: () => headerRequest('a'),
  },
  {
    name: 'path glob with 120 `*` in one segment, an 8 KiB path',
    rules: [{ match: { path: `/v1/accounts/${'*a'.repeat(120)}*c` }, then: SCRIPTED }],
    request: () => ({ path: `/v1/accounts/${'a'.repeat(PATH_CHARS - 20)}b` }),
  },
  {
    name: 'path glob with 60 `**` segments, an 8 KiB path',
    rules: [{ match: { path: `/v1/${'**/'.repeat(60)}x` }, then: SCRIPTED }],
    request: () => ({ path: `/v1/accounts/${'a/'.repeat((PATH_CHARS - 20) / 2)}b` }),
  },
];

interface Row {
  attack: string;
  loadStallMs: number;
  stallMs: number;
  innocentMaxMs: number;
  attackerMaxMs: number;
  answers: string;
}

async function drive(): Promise<void> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['serve'], { execArgv: ['--import', 'tsx'] });
  const next = async () => ((await once(child, 'message')) as [ServerMessage])[0];
  const listening = await next();
  if (listening.type !== 'listening') throw new Error('the mock did not start');
  const { base } = listening;
  const watch = async () => {
    child.send({ type: 'watch' } satisfies ClientMessage);
    await next();
  };
  const stall = async () => {
    child.send({ type: 'read' } satisfies ClientMessage);
    const message = await next();
    return message.type === 'stall' ? message.maxMs : Number.NaN;
  };
  const send = async (key: string, request: Request) => {
    const res = await fetch(`${base}${request.path}`, { method: request.method ?? 'GET', headers: { 'x-api-key': key, ...request.headers }, ...(request.body !== undefined && { body: request.body }) });
    await res.arrayBuffer();
    return res.status;
  };
  const addRule = async (key: string, rule: Record<string, unknown>, refused = false) => {
    const res = await fetch(`${base}/__control/rules`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(rule) });
    if (res.status !== (refused ? 400 : 201)) throw new Error(`POST /__control/rules answered ${res.status}: ${await res.text()}`);
  };
  const newWorkspace = async (): Promise<string> => {
    const res = await fetch(`${base}/__control/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': DEFAULT_API_KEY }, body: '{}' });
    if (res.status !== 201) throw new Error(`POST /__control/workspaces: ${res.status} ${await res.text()}`);
    const { apiKey } = (await res.json()) as { apiKey: string };
    // A workspace builds its world on its first request: done here, so it is not counted as a stall.
    await send(apiKey, { path: '/v1/connections' });
    return apiKey;
  };

  const innocent = await newWorkspace();
  // The first rule ever loaded reads the contract's operations once: warmed up here, not counted.
  await addRule(await newWorkspace(), headerRule('^warm'));
  const rows: Row[] = [];
  try {
    for (const attack of attacks) {
      const attacker = await newWorkspace();
      const requests = Array.from({ length: REQUESTS }, (_, n) => attack.request(n));
      await watch();
      for (const rule of attack.rules) await addRule(attacker, rule, attack.refused);
      const loadStallMs = await stall();
      if (attack.refused) {
        rows.push({ attack: attack.name, loadStallMs, stallMs: Number.NaN, innocentMaxMs: Number.NaN, attackerMaxMs: Number.NaN, answers: '400 at load' });
        continue;
      }

      await watch();
      let attacking = true;
      let innocentMaxMs = 0;
      const innocentLoop = (async () => {
        while (attacking) {
          const started = performance.now();
          const status = await send(innocent, { path: '/v1/connections' });
          if (status !== 200) throw new Error(`the innocent workspace was answered ${status}`);
          innocentMaxMs = Math.max(innocentMaxMs, performance.now() - started);
        }
      })();
      let attackerMaxMs = 0;
      const statuses = new Map<number, number>();
      for (const request of requests) {
        const started = performance.now();
        const status = await send(attacker, request);
        attackerMaxMs = Math.max(attackerMaxMs, performance.now() - started);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      attacking = false;
      await innocentLoop;
      const stallMs = await stall();
      rows.push({ attack: attack.name, loadStallMs, stallMs, innocentMaxMs, attackerMaxMs, answers: [...statuses].map(([status, count]) => `${count}× ${status}`).join(', ') });
      console.error(`${attack.name}: ${stallMs.toFixed(1)} ms (loading ${loadStallMs.toFixed(1)} ms)`);
    }
  } finally {
    child.disconnect();
  }

  const ms = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(1));
  console.log(`\nNode ${process.version}, ${REQUESTS} attacker requests per attack; patterns of at most ${MAX_PROGRAM_SIZE} RE2 instructions, ${MATCH_BUDGET_UNITS.toLocaleString('en')} units of matching per request.\n`);
  console.log('| Attack | Longest stall while the rules load (ms) | Longest stall under the requests (ms) | Innocent workspace, slowest answer (ms) | Attacker, slowest request (ms) | Attacker answered |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const row of rows) console.log(`| ${row.attack} | ${ms(row.loadStallMs)} | ${ms(row.stallMs)} | ${ms(row.innocentMaxMs)} | ${ms(row.attackerMaxMs)} | ${row.answers} |`);
  const worstOf = (row: Row) => Math.max(Number.isNaN(row.stallMs) ? 0 : row.stallMs, row.loadStallMs);
  const worst = rows.reduce((a, b) => (worstOf(b) > worstOf(a) ? b : a));
  console.log(`\nWorst stall: ${ms(worstOf(worst))} ms (${worst.attack}).`);
}

if (process.argv[2] === 'serve') await serve();
else await drive();
