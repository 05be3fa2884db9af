/**
 * `social-gateway-mock/types`: the types of both contracts, generated from them by
 * openapi-typescript (`npm run generate`), for a client written against the mock.
 *
 * Two contracts, one module, no clashes:
 *
 * - **The API (openapi.yaml)** keeps openapi-typescript's own names: {@link paths},
 *   {@link components}, {@link operations}, and one named type per body schema under the
 *   schema's own name (`Post`, `Webhook`, `ErrorResponse`, `CreatePostBody`).
 * - **The control plane (control.yaml)** takes the prefix `Control` everywhere:
 *   {@link ControlPaths}, {@link ControlComponents}, {@link ControlOperations}, and
 *   `ControlClock`, `ControlCreatedWorkspace`, `ControlErrorResponse` and so on (both contracts
 *   define a `Comment`, a `Message` and an error envelope, and they are not the same types).
 *
 * Named types, for both contracts (control.yaml's with the `Control` prefix):
 *
 * - every `components.schemas` and `components.requestBodies` entry by its name;
 * - every operation's JSON request body as `<OperationId>Body` (`likePost` → `LikePostBody`),
 *   where the body does not already have that name;
 * - every operation's JSON success body as `<OperationId>Response` where it is not one named
 *   schema (`connectAccount` → `ConnectAccountResponse`).
 *
 * The module holds types only: importing it adds nothing at run time.
 *
 * @example
 * ```ts
 * import type { Connection, CreatePostBody, Post } from 'social-gateway-mock/types';
 *
 * const base = 'http://127.0.0.1:4010/v1';
 * const headers = { 'x-api-key': 'sgw_test_default', 'content-type': 'application/json' };
 * const { connections } = (await (await fetch(`${base}/connections`, { headers })).json()) as { connections: Connection[] };
 * const body: CreatePostBody = { text: 'Hello', destinations: [{ connectionId: connections[0]!.id }] };
 * const res = await fetch(`${base}/posts`, { method: 'POST', headers, body: JSON.stringify(body) });
 * const { post } = (await res.json()) as { post: Post };
 * ```
 *
 * @packageDocumentation
 */
export type { paths, components, operations } from './generated/openapi.js';
export type { paths as ControlPaths, components as ControlComponents, operations as ControlOperations } from './generated/control.js';
export type * from './generated/named-types.js';
export type { EventName } from './events/catalog.js';
export type { EventData, EventPayloads, WebhookEventBody } from './events/payloads.js';
