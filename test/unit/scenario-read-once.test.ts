import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as parse from '../../src/scenarios/parse.js';
import { expectStatus, startMock, type StartedMock } from '../helpers/mock.js';
import { workspaceWith } from '../helpers/scenarios.js';

// Every read of a scenario's YAML goes through parseScenario: counted here. A spy rather than
// vi.mock, which would not reach a module that another file of the same worker loaded first.
const parseScenario = vi.spyOn(parse, 'parseScenario');
/** The scenarios read, by name. */
const reads = () => parseScenario.mock.calls.map(([source]) => source.name);
afterAll(() => {
  parseScenario.mockRestore();
});

describe('a scenario is read once', () => {
  let mock: StartedMock | undefined;
  beforeEach(() => {
    parseScenario.mockClear();
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
    const { key } = await workspaceWith(mock, 'network-outage');
    expect(reads()).toEqual(['network-outage']);
    expectStatus(await mock.control('post', '/__control/scenarios', key).send({ name: 'rate-limit-exhaustion' }), 200);
    expect(reads()).toEqual(['network-outage', 'rate-limit-exhaustion']);
  });

  it('and read again from the workspace when it is reset to it', async () => {
    mock = await startMock({ scenario: 'rate-limit-exhaustion' });
    parseScenario.mockClear();
    expectStatus(await mock.control('post', '/__control/reset'), 200);
    expect(reads()).toEqual(['rate-limit-exhaustion']);
    expectStatus(await mock.call('get', '/v1/posts'), 429);
  });
});
