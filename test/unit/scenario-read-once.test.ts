import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as parse from '../../src/scenarios/parse.js';
import { expectStatus, startMock, type StartedMock } from '../helpers/mock.js';
import { workspaceWith } from '../helpers/scenarios.js';

// Every read of a scenario's YAML goes through parseScenario, or readScenario for a request's (in
// slices, decision 0057): counted here. Spies rather than vi.mock, which would not reach a module
// that another file of the same worker loaded first.
const parseScenario = vi.spyOn(parse, 'parseScenario');
const readScenario = vi.spyOn(parse, 'readScenario');
/** The scenarios read, by name, in the order they were read. */
const reads = () =>
  [parseScenario.mock, readScenario.mock]
    .flatMap(({ calls, invocationCallOrder }) => calls.map(([source], i) => ({ name: source.name, order: invocationCallOrder[i] ?? 0 })))
    .sort((a, b) => a.order - b.order)
    .map(({ name }) => name);
afterAll(() => {
  parseScenario.mockRestore();
  readScenario.mockRestore();
});

describe('a scenario is read once', () => {
  let mock: StartedMock | undefined;
  beforeEach(() => {
    parseScenario.mockClear();
    readScenario.mockClear();
  });
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it('when --scenario builds the default workspace', async () => {
    mock = await startMock({ scenario: 'rate-limit-exhaustion' });
    expect(reads()).toEqual(['rate-limit-exhaustion']);
    expect(mock.server.registry.defaultWorkspace.data.origin?.scenario?.name).toBe('rate-limit-exhaustion');
    expectStatus(await mock.call('get', '/v1/posts'), 429);
  });

  it('when the control plane creates a workspace with one, or loads one', async () => {
    mock = await startMock();
    parseScenario.mockClear();
    readScenario.mockClear();
    const { key } = await workspaceWith(mock, 'network-outage');
    expect(reads()).toEqual(['network-outage']);
    expectStatus(await mock.control('post', '/__control/scenarios', key).send({ name: 'rate-limit-exhaustion' }), 200);
    expect(reads()).toEqual(['network-outage', 'rate-limit-exhaustion']);
  });

  it('and read again from the workspace when it is reset to it', async () => {
    mock = await startMock({ scenario: 'rate-limit-exhaustion' });
    parseScenario.mockClear();
    readScenario.mockClear();
    expectStatus(await mock.control('post', '/__control/reset'), 200);
    expect(reads()).toEqual(['rate-limit-exhaustion']);
    expectStatus(await mock.call('get', '/v1/posts'), 429);
  });
});
