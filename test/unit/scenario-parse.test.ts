import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { parseScenario, schemaValidator, ScenarioError } from '../../src/scenarios/parse.js';
import { timelineSteps } from '../../src/scenarios/timeline-steps.js';

function problem(yaml: string): ScenarioError {
  try {
    parseScenario({ name: 'broken', file: 'broken.yaml', yaml });
  } catch (error) {
    if (error instanceof ScenarioError) return error;
    throw error;
  }
  throw new Error('expected a ScenarioError');
}

describe('a rule error without status', () => {
  it('takes the status the code implies on every operation the rule reaches (decision 0049)', () => {
    const parsed = parseScenario({ name: 'implied', file: 'implied.yaml', yaml: 'rules:\n  - id: third-post\n    match: { operationId: createPost, nth: 3 }\n    then: { error: { code: VELOCITY_LIMITED } }\n' });
    expect(parsed.scenario.rules[0]?.then.error).toEqual({ status: 429, code: 'VELOCITY_LIMITED' });
  });
});

describe('a malformed scenario', () => {
  it.each([
    ['not YAML', 'rules:\n  - id: a\n    then: { latencyMs: 1 }\n  bad: [', 4, 1, '', /not valid YAML/],
    ['a duplicate key', 'rules: []\nrules: []\n', 2, 1, '', /Map keys must be unique/],
    ['an alias to no anchor', 'name: x\nrules:\n  - *nowhere\n', 3, 5, '', /not valid YAML: Unresolved alias/],
    ['an alias that holds itself', 'name: x\nrules: &r\n  - *r\n', 3, 5, '', /not valid YAML: an alias refers to the node that holds it/],
    ['aliases that multiply the data', 'description: x\nstates: &a [a, a, a, a, a, a, a, a, a, a]\nx1: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nx2: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nx3: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n', 3, 9, '', /not valid YAML: Excessive alias count/],
    ['a misspelt field', 'rules:\n  - id: a\n    thn: { latencyMs: 1 }\n', 3, 5, 'rules[0].thn', /unknown field "thn" \(expected one of: id, description, match, then, times\)/],
    ['a missing field', 'timeline:\n  - at: PT1H\n', 2, 5, 'timeline[0]', /missing required field "do"/],
    ['a wrong type', 'rules:\n  - id: a\n    then:\n      error: { status: "429", code: RATE_LIMITED }\n', 4, 24, 'rules[0].then.error.status', /must be integer; got "429"/],
    ['a list that is not one', 'rules: 5\n', 1, 8, 'rules', /must be array; got 5/],
    ['an unknown operation', 'rules:\n  - id: a\n    match: { operationId: listConections }\n    then: { drop: true }\n', 3, 27, 'rules[0].match.operationId', /"listConections" is not an operation of openapi.yaml; did you mean listConnections\?$/],
    ['a status the operation does not declare', 'rules:\n  - id: a\n    match: { operationId: listConnections }\n    then:\n      error: { status: 502, code: PLATFORM_ERROR }\n', 5, 24, 'rules[0].then.error.status', /502 is not a status openapi.yaml declares for listConnections/],
    ['an error without status whose code implies none', 'rules:\n  - id: a\n    match: { operationId: listConnections }\n    then:\n      error: { code: TEAPOT }\n', 5, 14, 'rules[0].then.error.status', /missing required field "status": no operation the rule reaches declares TEAPOT under one status, so give it/],
    ['a matcher no operation satisfies', 'rules:\n  - id: a\n    match: { operationId: listConnections, platform: tiktok }\n    then: { drop: true }\n', 3, 12, 'rules[0].match', /matches no operation/],
    ['an undeclared state', 'states: [calm]\nrules:\n  - id: a\n    match: { state: storm }\n    then: { drop: true }\n', 4, 21, 'rules[0].match.state', /"storm" is not one of the declared states \(calm\)/],
    ['an unknown step kind', 'timeline:\n  - at: PT1H\n    do: teleport\n', 3, 9, 'timeline[0].do', /unknown step kind "teleport"/],
    ['a field of the control body a step does not take', 'timeline:\n  - { at: PT1H, do: inbound.message, accountId: abc }\n', 2, 38, 'timeline[0].accountId', /unknown field "accountId" \(expected one of: at, do, account, conversationId, senderId, username, displayName, text, attachmentUrl\)/],
    ['webhook faults of another shape', 'timeline:\n  - { at: PT1H, do: webhook.faults, webhook: "*", faults: { status: 500 } }\n', 2, 61, 'timeline[0].faults.status', /unknown field "status" \(expected one of: duplicate, outOfOrder, delayMs, failStatus, failCount\)/],
    ['more network posts than a sync reads', 'timeline:\n  - { at: PT1H, do: network.post, account: bluesky, count: 21 }\n', 2, 60, 'timeline[0].count', /must be <= 20; got 21/],
    ['a moment that is not one', 'timeline:\n  - at: two hours\n    do: emit\n    event: webhook.test\n', 2, 9, 'timeline[0].at', /"two hours" is not valid here/],
    ['an event outside the catalog', 'timeline:\n  - at: PT1H\n    do: emit\n    event: post.exploded\n', 4, 12, 'timeline[0].event', /must be one of post.scheduled, .*; got "post.exploded"/],
    ['a __proto__ key (no prototype pollution from a scenario)', 'rules:\n  - id: a\n    __proto__: { polluted: yes }\n    then: { drop: true }\n', 3, 5, 'rules[0].__proto__', /unknown field "__proto__"/],
    ['a field of another step kind', 'timeline:\n  - { at: PT1H, do: emit, event: webhook.test, colour: red }\n', 2, 48, 'timeline[0].colour', /unknown field "colour" \(expected one of: at, do, event, data\)/],
    ['a duplicate rule id', 'rules:\n  - id: a\n    then: { drop: true }\n  - id: a\n    then: { reset: true }\n', 4, 9, 'rules[1].id', /duplicate rule id "a"/],
    ['two answers in one rule', 'rules:\n  - id: a\n    then: { drop: true, malformed: true }\n', 3, 36, 'rules[0].then.malformed', /not drop and malformed/],
    ['nth with every', 'rules:\n  - id: a\n    match: { nth: 2, every: 3 }\n    then: { drop: true }\n', 3, 29, 'rules[0].match.every', /nth or every, not both/],
    ['an empty window', 'rules:\n  - id: a\n    match: { window: { from: PT2H, until: PT1H } }\n    then: { latencyMs: 1 }\n', 3, 43, 'rules[0].match.window.until', /until must be later than from/],
    ['RATE_LIMITED details of another shape', 'rules:\n  - id: a\n    then: { error: { status: 429, code: RATE_LIMITED, details: { wait: 3 } } }\n', 3, 66, 'rules[0].then.error.details.wait', /RATE_LIMITED details hold only currentCount, limit, retryAfterSeconds/],
    ['an enumeration value clients know', 'rules:\n  - id: a\n    then: { unknownValues: { platform: twitter } }\n', 3, 40, 'rules[0].then.unknownValues.platform', /"twitter" is a value clients already know/],
    ['a world post in the future', 'posts:\n  - to: twitter\n    at: PT1H\n', 3, 9, 'posts[0].at', /before the scenario starts/],
    ['a step before the load', 'timeline:\n  - at: -PT1H\n    do: emit\n    event: webhook.test\n', 2, 9, 'timeline[0].at', /after the scenario is loaded/],
    ['an account entry that changes nothing', 'accounts:\n  - account: twitter\n', 2, 5, 'accounts[0]', /says which account but not what to change/],
    ['a respond with two bodies', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: { status: 200, json: {}, text: x }\n', 5, 47, 'rules[0].then.respond.text', /give json or text, not both/],
    ['a respond body on a 204', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: { status: 204, json: {} }\n', 5, 37, 'rules[0].then.respond.json', /a 204 answer has no body/],
    ['a respond framing header', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: { status: 200, headers: { Content-Length: \'3\' }, text: abc }\n', 5, 42, 'rules[0].then.respond.headers.Content-Length', /set by the mock from the body it sends/],
    ['a respond status out of range', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: { status: 99 }\n', 5, 26, 'rules[0].then.respond.status', /must be >= 200; got 99/],
    ['an unknown field of respond', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: { status: 200, body: x }\n', 5, 31, 'rules[0].then.respond.body', /unknown field "body" \(expected one of: status, headers, json, text\)/],
    ['a respond header value on two lines', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then:\n      respond: { status: 200, headers: { x-a: "1\\r\\nx-b: 2" } }\n', 5, 47, 'rules[0].then.respond.headers.x-a', /is not valid here|must match/],
    ['respond with error', 'rules:\n  - id: a\n    match: { operationId: getPost }\n    then: { error: { status: 404, code: NOT_FOUND }, respond: { status: 404 } }\n', 4, 63, 'rules[0].then.respond', /not error and respond/],
  ])('names the line and column of %s', (_what, yaml, line, column, field, reason) => {
    const error = problem(yaml);
    expect(error.message).toMatch(new RegExp(`^broken\\.yaml:${line}:${column}: `));
    expect({ line: error.line, column: error.column, field: error.field }).toEqual({ line, column, field });
    expect(error.reason).toMatch(reason);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('says an empty file is empty', () => {
    expect(problem('').message).toBe('broken.yaml:1:1: the scenario is empty; it needs at least one of accounts, posts, rules or timeline');
  });
});

describe('a well-formed scenario', () => {
  it('reads every part: world, rules with their reachable operations, and timeline', () => {
    const { scenario } = parseScenario({
      name: 'fine',
      file: 'fine.yaml',
      yaml: [
        'seed: 9',
        'plan: free',
        'clock: { start: "2026-03-02T09:00:00Z", frozen: true }',
        'states: [calm, storm]',
        'accounts: [{ account: tiktok, status: expired }]',
        'posts: [{ to: [twitter], at: -PT10M, count: 3, spacing: PT2M }]',
        'rules:',
        '  - id: stats-down',
        '    match: { path: /v1/connections/*/stats, platform: tiktok, window: { from: PT1H } }',
        '    then: { error: { status: 502, code: PLATFORM_ERROR }, latencyMs: 5, state: storm }',
        '    times: 2',
        'timeline:',
        '  - { at: PT2H, do: state, to: calm }',
      ].join('\n'),
    });
    expect(scenario).toMatchObject({
      name: 'fine',
      seed: 9,
      plan: 'free',
      clock: { startMs: Date.parse('2026-03-02T09:00:00Z'), frozen: true },
      states: ['calm', 'storm'],
      accounts: [{ account: 'tiktok', status: 'expired' }],
      posts: [{ to: ['twitter'], when: { relativeMs: -600_000 }, count: 3, spacingMs: 120_000, status: 'published' }],
      rules: [{ id: 'stats-down', operations: ['getConnectionStats'], times: 2, match: { platforms: ['tiktok'], window: { from: { relativeMs: 3_600_000 } } } }],
      timeline: [{ do: 'state', when: { relativeMs: 7_200_000 }, params: { to: 'calm' } }],
    });
  });
});

describe('the ready-made scenarios', () => {
  const dir = packagePath('scenarios');
  const files = readdirSync(dir).filter((file) => file.endsWith('.yaml'));

  it('are at least ten', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it.each(files)('%s points editors at the schema and validates against it', (file) => {
    const text = readFileSync(`${dir}/${file}`, 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./scenario.schema.json');
    const validate = schemaValidator();
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(files)('%s reads without a problem', (file) => {
    const source = { name: file.replace('.yaml', ''), file: `scenarios/${file}`, yaml: readFileSync(`${dir}/${file}`, 'utf8') };
    expect(parseScenario(source).scenario.name).toBe(file.replace('.yaml', ''));
  });
});

describe('the step kinds', () => {
  const schema = JSON.parse(readFileSync(packagePath('scenarios', 'scenario.schema.json'), 'utf8')) as { definitions: { step: { oneOf: Array<{ properties: Record<string, unknown> & { do: { const: string } } }> } } };
  const branch = (kind: string) => schema.definitions.step.oneOf.find((b) => b.properties.do.const === kind);

  it('are the same in the schema and in the registry', () => {
    const inSchema = schema.definitions.step.oneOf.map((b) => b.properties.do.const).sort();
    expect(inSchema).toEqual([...timelineSteps.keys()].sort());
  });

  it.each([
    ['inbound.comment', 'InboundCommentBody'],
    ['inbound.message', 'InboundMessageBody'],
    ['inbound.story-reply', 'InboundStoryReplyBody'],
    ['inbound.review', 'InboundReviewBody'],
  ])('%s takes the body of its control endpoint (%s), with account for accountId', (kind, body) => {
    const control = parse(readFileSync(packagePath('control.yaml'), 'utf8')) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const fields = Object.keys(control.components.schemas[body]?.properties ?? {}).map((field) => (field === 'accountId' ? 'account' : field));
    expect(Object.keys(branch(kind)?.properties ?? {}).sort()).toEqual(['at', 'do', ...fields].sort());
  });

  it('webhook.faults takes the body of POST /__control/webhooks/{id}/faults', () => {
    type Body = { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    const control = parse(readFileSync(packagePath('control.yaml'), 'utf8')) as { components: { requestBodies: Record<string, Body> } };
    const faults = branch('webhook.faults')?.properties['faults'] as { properties: Record<string, unknown> };
    expect(Object.keys(faults.properties).sort()).toEqual(Object.keys(control.components.requestBodies['WebhookFaultsBody']?.content['application/json'].schema.properties ?? {}).sort());
  });
});
