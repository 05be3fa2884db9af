import { expect } from 'vitest';
import { ViewMemo } from '../../src/http/json-memo.js';

/** One way to change a record, named for the failure it would explain. */
export interface Mutation<R> {
  name: string;
  apply: (record: R) => void;
}

/**
 * Holds `ViewMemo.from` on a view's inputs to what it must do: the view made once while nothing
 * changes, and after each mutation, applied one after another to the same record, the view as it
 * is now (a new object whenever it reads differently from the one before the mutation).
 */
export function expectMemoFollowsInputs<R extends object>(record: R, inputsOf: (record: R) => unknown[], viewOf: (record: R) => object, mutations: ReadonlyArray<Mutation<R>>): void {
  const memo = new ViewMemo();
  let built = 0;
  const read = () =>
    memo.from(record, inputsOf(record), (held) => {
      built++;
      return viewOf(held);
    });
  const first = read();
  expect(read()).toBe(first);
  expect(built).toBe(1);
  for (const { name, apply } of mutations) {
    const previous = read();
    apply(record);
    const now = JSON.stringify(viewOf(record));
    expect(JSON.stringify(read()), name).toBe(now);
    // A view that reads differently is a new object, never the one answered just before it.
    if (now !== JSON.stringify(previous)) expect(read(), name).not.toBe(previous);
  }
}
