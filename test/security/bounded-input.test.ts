import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { MAX_JSON_DEPTH } from '../../src/lib/nesting.js';
import { createMockServer } from '../../src/server.js';
import { DataFileError, DATA_FORMAT, DATA_VERSION } from '../../src/store/database.js';
import { cliIo } from '../helpers/cli-io.js';
import { expectApiError, expectStatus, startMock, TEST_CLOCK, type TestMock, useMock } from '../helpers/mock.js';

/*
 * Item 3 of issue 28, first half: a body nested a few thousand deep was accepted (as a free-form
 * field that is stored), after which every read of the workspace and the server's workspace list
 * answered 500, and under --data every later write was acknowledged but never reached the file.
 * Now anything nested past MAX_JSON_DEPTH is refused where it comes in.
 */

const DEEP = 5000;
const NAMES_LIMIT = new RegExp(`more than ${MAX_JSON_DEPTH} levels`);

/** JSON text of an object nested `depth` levels (built as text: JSON.stringify itself overflows on such values). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
}

/** A connect whose free-form `metadata` (stored on the account, answered on every read) nests `depth` levels in the body. */
function connectBody(depth: number): string {
  return `{"identifier":"deep.bsky.social","appPassword":"abcd-efgh-ijkl-mnop","metadata":${nested(depth - 1)}}`;
}

function postJson(mock: TestMock, path: string, body: string, control = false) {
  return (control ? mock.control('post', path) : mock.call('post', path)).set('Content-Type', 'application/json').send(body);
}

async function expectServerReadable(mock: TestMock): Promise<void> {
  expectStatus(await mock.call('get', '/v1/accounts?limit=100'), 200);
  expectStatus(await mock.control('get', '/__control/state'), 200);
  expectStatus(await mock.control('get', '/__control/workspaces'), 200);
}

describe('request bodies nested past the limit', () => {
  const mock = useMock();

  describe('on /v1', () => {
    it.each([DEEP, MAX_JSON_DEPTH + 1])('refuses a body %i levels deep with 400 VALIDATION_ERROR naming the limit, and the world still reads', async (depth) => {
      const res = await postJson(mock, '/v1/connections/bluesky/connect', connectBody(depth));
      expectApiError(res, 400, 'VALIDATION_ERROR', 'body');
      expect(res.body.error.message).toMatch(NAMES_LIMIT);
      await expectServerReadable(mock);
    });

    it(`takes a body exactly ${MAX_JSON_DEPTH} levels deep`, async () => {
      expectStatus(await postJson(mock, '/v1/connections/bluesky/connect', connectBody(MAX_JSON_DEPTH)), 200);
      await expectServerReadable(mock);
    });

    it('refuses a deep body that would also fail validation for its depth, not a 500', async () => {
      const res = await postJson(mock, '/v1/profiles', `{"name":${nested(DEEP)}}`);
      expectApiError(res, 400, 'VALIDATION_ERROR', 'body');
      expect(res.body.error.message).toMatch(NAMES_LIMIT);
    });

    it('refuses a deep array as well as a deep object', async () => {
      const res = await postJson(mock, '/v1/profiles', `{"name":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}`);
      expectApiError(res, 400, 'VALIDATION_ERROR', 'body');
      expect(res.body.error.message).toMatch(NAMES_LIMIT);
    });
  });

  describe('on /__control', () => {
    it('refuses a rule whose stored answer nests past the limit, and the rules still list', async () => {
      const rule = `{"id":"deep","match":{"operationId":"listPosts"},"then":{"respond":{"status":200,"json":${nested(DEEP)}}}}`;
      const res = await postJson(mock, '/__control/rules', rule, true);
      expectApiError(res, 400, 'VALIDATION_ERROR', 'body');
      expect(res.body.error.message).toMatch(NAMES_LIMIT);
      expectStatus(await mock.control('get', '/__control/rules'), 200);
      await expectServerReadable(mock);
    });

    it('answers 413 on a control operation past --body-limit (64 MiB is for PUT /__control/state only)', async () => {
      const res = await postJson(mock, '/__control/rules', JSON.stringify({ id: 'big', then: { respond: { status: 200, json: { pad: 'x'.repeat(1024 * 1024) } } } }), true);
      expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(res.body.error.message).toContain('1048576 bytes');
    });

    it('takes back a snapshot of a world holding bodies at the limit (a stored world nests deeper than a body)', async () => {
      const world = await createdWorkspace(mock);
      expectStatus(await mock.call('post', '/v1/connections/bluesky/connect', world.key).set('Content-Type', 'application/json').send(connectBody(MAX_JSON_DEPTH)), 200);
      const snapshot = await mock.control('get', '/__control/state', world.key);
      expectStatus(snapshot, 200);
      expectStatus(await mock.control('put', '/__control/state', world.key).set('Content-Type', 'application/json').send(snapshot.text), 200);
    });
  });

  describe('in a scenario', () => {
    const deepYaml = `name: deep\ndescription: ${'['.repeat(DEEP)}${']'.repeat(DEEP)}\n`;

    it('refuses YAML nested past the limit with 400 INVALID_SCENARIO naming it (as every scenario it cannot use), on POST /__control/scenarios', async () => {
      const res = await mock.control('post', '/__control/scenarios').send({ yaml: deepYaml });
      expectApiError(res, 400, 'INVALID_SCENARIO');
      expect(res.body.error.message).toMatch(NAMES_LIMIT);
      await expectServerReadable(mock);
    });

    it('refuses it on POST /__control/workspaces with a scenario', async () => {
      const res = await mock.control('post', '/__control/workspaces').send({ scenario: deepYaml });
      expectApiError(res, 400, 'INVALID_SCENARIO');
      expect(res.body.error.message).toMatch(NAMES_LIMIT);
    });

    it('refuses aliases that nest anchors past the limit, though the text itself is shallow', async () => {
      const half = Math.ceil(MAX_JSON_DEPTH / 2) + 1;
      const yaml = `name: aliased\nx0: &a0 ${'['.repeat(half)}${']'.repeat(half)}\nx1: &a1 ${'['.repeat(half)}*a0${']'.repeat(half)}\ndescription: [*a1]\n`;
      const res = await mock.control('post', '/__control/scenarios').send({ yaml });
      expectApiError(res, 400, 'INVALID_SCENARIO');
      expect(res.body.error.message).toMatch(NAMES_LIMIT);
    });

    it('refuses an alias bomb (aliases that multiply the data)', async () => {
      const yaml = `name: bomb\nx0: &a [a, a, a, a, a, a, a, a, a, a]\n${[1, 2, 3, 4, 5, 6, 7, 8].map((i) => `x${i}: &a${i} [${Array(10).fill(i === 1 ? '*a' : `*a${i - 1}`).join(', ')}]`).join('\n')}\n`;
      const res = await mock.control('post', '/__control/scenarios').send({ yaml });
      expectApiError(res, 400, 'INVALID_SCENARIO');
      expect(res.body.error.message).toMatch(/alias/i);
    });

    it('refuses a deep --scenario at start', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'sgw-deep-')), 'deep.yaml');
      writeFileSync(file, deepYaml);
      await expect(createMockServer({ scenario: file })).rejects.toThrow(NAMES_LIMIT);
    });
  });
});

async function createdWorkspace(mock: TestMock): Promise<{ id: string; key: string }> {
  const res = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
  expectStatus(res, 201);
  return { id: res.body.workspaceId as string, key: res.body.apiKey as string };
}

describe('--data', () => {
  it('refuses a data file nested past the limit at start, naming it, and leaves it untouched', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sgw-deep-data-')), 'data.json');
    const text = `{"format":"${DATA_FORMAT}","version":${DATA_VERSION},"workspaceCounter":0,"workspaces":{},"extra":${nested(DEEP)}}`;
    writeFileSync(file, text);
    const start = createMockServer({ dataFile: file });
    await expect(start).rejects.toThrow(DataFileError);
    await expect(start).rejects.toThrow(/levels deep/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('keeps writing after a deep body was refused: a later write reaches the file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sgw-deep-data-')), 'data.json');
    const mock = await startMock({ dataFile: file, clock: TEST_CLOCK });
    try {
      const deep = await postJson(mock, '/v1/connections/bluesky/connect', connectBody(DEEP));
      const later = await mock.call('post', '/v1/profiles').send({ name: 'Written after the deep body' });
      expectStatus(later, 201);
      // Acknowledged, so in the file (the old code answered 201 and its flush failed on the deep record).
      expect(readFileSync(file, 'utf8')).toContain('Written after the deep body');
      expectApiError(deep, 400, 'VALIDATION_ERROR', 'body');
    } finally {
      await mock.close();
    }
  });
});

describe('a virtual clock before 1970', () => {
  // Found by the fuzz (seed 28): a scenario starting in 1960, loaded into the default workspace,
  // made GET /__control/state answer 500 (its clock.nowMs, declared non-negative, was negative).
  const mock = useMock();

  it('is refused where a clock starts: a new workspace, a scenario, the command line', async () => {
    const created = await mock.control('post', '/__control/workspaces').send({ clock: { start: '1969-12-31T23:59:59Z' } });
    expectApiError(created, 400, 'VALIDATION_ERROR', 'clock.start');
    const loaded = await mock.control('post', '/__control/scenarios').send({ yaml: 'name: old\nclock:\n  start: 1960-01-01T00:00:00Z\n' });
    expectApiError(loaded, 400, 'INVALID_SCENARIO');
    expect(loaded.body.error.message).toContain('1970');
    expectStatus(await mock.control('get', '/__control/state'), 200);
    const io = cliIo();
    expect(await main(['--clock', '1900-01-01T00:00:00Z', '--port', '0'], io.streams)).toEqual({ exitCode: 2 });
    expect(io.err.join('\n')).toContain('1970');
    expectStatus(await mock.control('post', '/__control/workspaces').send({ clock: { start: '1970-01-01T00:00:00Z' } }), 201);
  });
});

describe('a snapshot whose workspace would start before 1970', () => {
  // The same fuzz run found the second way in: a restored snapshot's origin (where a reset goes back
  // to) started at a negative instant, and the reset that followed made GET /__control/state answer 500.
  const mock = useMock();

  it('is refused on restore, and a reset after a refused restore keeps the clock', async () => {
    const state = (await mock.control('get', '/__control/state')).body;
    for (const where of ['origin', 'base'] as const) {
      const broken = structuredClone(state);
      if (where === 'origin') broken.workspace.origin.clockStartMs = -86_400_000;
      else broken.workspace.origin.base = { ...(broken.workspace.origin.base ?? broken.workspace.origin), clockStartMs: -1 };
      if (where === 'base' && broken.workspace.origin.base.scenario !== undefined) delete broken.workspace.origin.base.scenario;
      expectApiError(await mock.control('put', '/__control/state').send(broken), 400, 'VALIDATION_ERROR');
    }
    expectStatus(await mock.control('post', '/__control/reset'), 200);
    const after = await mock.control('get', '/__control/state');
    expectStatus(after, 200);
    expect(after.body.workspace.clock.nowMs).toBeGreaterThanOrEqual(0);
  });
});
