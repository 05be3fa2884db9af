import type { operations as ControlOperations } from '../generated/control.js';

/*
 * The control plane's operations as types, from control.yaml's generated types: what the typed
 * client (control-client.ts) and the dashboard's calls (src/dashboard/ui/control-client.ts,
 * which may import types only from outside its folder) are both typed with.
 */

type Operations = ControlOperations;

/** Every operation of control.yaml, by operationId. */
export type ControlOperationId = keyof Operations & string;

type SuccessStatus = 200 | 201 | 202 | 203 | 204;
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<K extends ControlOperationId> = Operations[K]['responses'];

/** The JSON body an operation answers on success, from control.yaml. */
export type ControlResult<K extends ControlOperationId> = {
  [S in keyof Responses<K>]: S extends SuccessStatus ? JsonContent<Responses<K>[S]> : never;
}[keyof Responses<K>];

/** The JSON request body of an operation, from control.yaml (`never` when it takes none). */
export type ControlBody<K extends ControlOperationId> = JsonContent<NonNullable<Operations[K]['requestBody']>>;

/** The query parameters of an operation, from control.yaml. */
export type ControlQuery<K extends ControlOperationId> = NonNullable<Operations[K]['parameters']['query']>;

/** Every error body control.yaml declares (the nested `{ error: { code, message } }` envelope). */
export type ControlErrorBody = {
  [K in ControlOperationId]: { [S in keyof Responses<K>]: S extends SuccessStatus ? never : JsonContent<Responses<K>[S]> }[keyof Responses<K>];
}[ControlOperationId];
