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
 *   `ControlClock`, `ControlCreatedWorkspace`, `ControlErrorEnvelope` and so on (both contracts
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
 * import type { CreatePostBody, Post, operations } from 'social-gateway-mock/types';
 *
 * const body: CreatePostBody = { text: 'Hello', destinations: [{ connectionId: 'c0ffee00-0000-4000-8000-000000000001' }] };
 * const res = await fetch('http://127.0.0.1:4010/v1/posts', {
 *   method: 'POST',
 *   headers: { 'x-api-key': 'sgw_test_default', 'content-type': 'application/json' },
 *   body: JSON.stringify(body),
 * });
 * type Created = operations['createPost']['responses'][201]['content']['application/json'];
 * const post: Post = ((await res.json()) as Created).post;
 * ```
 *
 * @packageDocumentation
 */
export type { paths, components, operations } from './generated/openapi.js';
export type { paths as ControlPaths, components as ControlComponents, operations as ControlOperations } from './generated/control.js';
export type * from './generated/named-types.js';
export type { EventName } from './events/catalog.js';
export type { EventData, EventPayloads, WebhookEventBody } from './events/payloads.js';
