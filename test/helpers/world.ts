import type request from 'supertest';
import { expect } from 'vitest';
import type { DomainEvent, EventName } from '../../src/events/catalog.js';
import type { PlanName } from '../../src/store/plans.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import type { TestMock } from './mock.js';
import { exampleData } from './webhook-contract.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A fresh, empty workspace of the test mock, frozen at the server's clock start. */
export interface World {
  key: string;
  workspace: Workspace;
  call(method: Method, path: string): request.Test;
  control(method: Method, path: string): request.Test;
  /** Moves the world's clock and waits for what falls due, webhook requests included. */
  advance(ms: number): Promise<request.Response>;
  /** Emits an event as a service would, with the contract's example data unless given. */
  emit(event: EventName, data?: Record<string, unknown>): DomainEvent;
  /** Virtual now, in ms. */
  now(): number;
}

export async function newWorld(mock: TestMock, options: { plan?: PlanName } = {}): Promise<World> {
  const res = await mock.control('post', '/__control/workspaces').send({ fixtures: false, ...(options.plan && { plan: options.plan }) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const key = res.body.apiKey as string;
  const workspace = mock.server.registry.byApiKey(key) as Workspace;
  return {
    key,
    workspace,
    call: (method, path) => mock.call(method, path, key),
    control: (method, path) => mock.control(method, path, key),
    async advance(ms) {
      const moved = await mock.control('post', '/__control/clock/advance', key).send({ ms });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      return moved;
    },
    emit: (event, data) => workspace.events.emit(event, data ?? exampleData(event)),
    now: () => workspace.now(),
  };
}
