import type { operations } from '../generated/openapi.js';
import type { HandlerInput, Reply, RouteDefinition } from './route.js';
import { route } from './route.js';

/** Operation ids of openapi.yaml. */
export type OperationId = keyof operations;

type Parameters<K extends OperationId> = operations[K]['parameters'];
type PathOf<K extends OperationId> = Parameters<K> extends { path: infer P } ? NonNullable<P> : Record<string, never>;
type QueryOf<K extends OperationId> = Parameters<K> extends { query?: infer Q } ? ([Q] extends [undefined] ? Record<string, never> : NonNullable<Q>) : Record<string, never>;
type BodyOf<K extends OperationId> = operations[K] extends { requestBody?: infer R }
  ? R extends { content: { 'application/json': infer B } }
    ? undefined extends R
      ? B | undefined
      : B
    : undefined
  : undefined;

type Responses<K extends OperationId> = operations[K]['responses'];
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
/** The body of a 2xx answer of the operation, from the contract. */
export type SuccessBody<K extends OperationId> = { [S in keyof Responses<K>]: S extends 200 | 201 | 202 ? JsonOf<Responses<K>[S]> : never }[keyof Responses<K>];

/** A handler's answer, its body typed by the operation's success responses. */
export interface ApiReply<K extends OperationId> extends Reply {
  status: 200 | 201 | 202;
  body?: SuccessBody<K>;
}

export type ApiInput<K extends OperationId> = HandlerInput<PathOf<K>, QueryOf<K>, BodyOf<K>>;

/**
 * Declares the route of an openapi.yaml operation with its input and answer typed
 * from src/generated/openapi.ts, so a view that drifts from the contract fails to
 * compile, not only to validate.
 */
export function apiRoute<K extends OperationId>(operationId: K, handle: (input: ApiInput<K>) => ApiReply<K> | Promise<ApiReply<K>>, notes?: string): RouteDefinition {
  return route(operationId, handle, notes);
}
