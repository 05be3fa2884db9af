// Generated from control.yaml by `npm run generate` (scripts/generated-control-client.ts). Do not edit by hand.
import type { ControlBody, ControlOperationId, ControlQuery, ControlResult } from './control-types.js';

/** What a method hands the transport besides its operationId. */
export interface ControlCallOptions {
  pathParams?: Record<string, string>;
  query?: object | undefined;
  body?: unknown;
  signal?: AbortSignal;
  accept?: string;
}

/**
 * One method per operation of control.yaml that answers JSON, named after its operationId and
 * typed from the contract: path parameters first, then the query or the body. Its text is the
 * operation's summary, description and `x-codeSamples`. {@link ControlClient} supplies `json`.
 */
export abstract class ControlMethods {
  protected abstract json<K extends ControlOperationId>(operationId: K, options?: ControlCallOptions): Promise<ControlResult<K>>;

  /**
   * `GET /__control/health`: Tell whether the server is up.
   *
   * Answers while the server is up: its status, version, how many workspaces it holds and how many failures it contained (each a bug, logged with its stack). Needs no key and changes nothing.
   */
  getHealth(): Promise<ControlResult<'getHealth'>> {
    return this.json('getHealth');
  }

  /**
   * `GET /__control/workspaces`: List the server's workspaces.
   *
   * Every workspace the server holds, the default one first: its plan, when it was
   * created and last used (instants of its own virtual clock: its start, and where its
   * clock stood at its last request), how long it has been idle (`idleMs`, wall
   * milliseconds: what `--workspace-ttl` measures), about how large it is (`sizeBytes`,
   * the length of its data as JSON) and what it holds open (pending scheduler jobs,
   * whether a real timer is set, webhook requests in flight, open event streams).
   * Changes nothing.
   */
  listWorkspaces(): Promise<ControlResult<'listWorkspaces'>> {
    return this.json('listWorkspaces');
  }

  /**
   * `POST /__control/workspaces`: Create an isolated workspace and its API key.
   *
   * A fresh world with its own data, key, plan, virtual clock, scheduler and journal.
   * Parallel test workers each create one on a shared server. By default it holds
   * the fixture world generated from its seed; `fixtures: false` starts it empty, and
   * `pending: false` keeps the fixture world without the posts and tokens that would
   * act by themselves as the clock moves.
   * `scenario` (the name of a ready-made scenario, or a whole scenario as YAML)
   * sets up its world, rules and timeline; the body's own `plan`, `seed`, `fixtures`
   * and `clock` win over the scenario's. A scenario that cannot be used answers
   * `400 INVALID_SCENARIO` with `file:line:column` in the message and in `details`,
   * and no workspace is made (so is one that would make more than 2,000 objects, as
   * `POST /__control/scenarios` says). `from` (a workspace's id) forks that workspace instead:
   * a copy of its whole world, clock included, with its own id and key; an unknown
   * id is `404`. Under `--max-workspaces` a server that holds as many as it may
   * answers `503 WORKSPACE_LIMIT_REACHED` naming the limit (or, with
   * `--on-max-workspaces evict`, evicts the longest idle workspace to make room, once it
   * has been idle 5 minutes, or `--workspace-ttl` when shorter: a workspace used more
   * recently is never evicted, and the creation answers 503).
   *
   * @example
   * ```ts
   * const created = await control.createWorkspace({ plan: 'free', seed: 3, scenario: 'network-outage' });
   * ```
   */
  createWorkspace(body: ControlBody<'createWorkspace'> = {}): Promise<ControlResult<'createWorkspace'>> {
    return this.json('createWorkspace', { body });
  }

  /**
   * `DELETE /__control/workspaces/{id}`: Delete a workspace and release everything it holds.
   *
   * The workspace ends at once: its keys answer `401 UNAUTHORIZED` from now on, its
   * scheduler stops (no job fires and no webhook attempt or retry is sent after; a
   * request already on the wire is not called back), its open event streams close, and
   * the server forgets its data and journal (with `--data`, it leaves the file). The
   * server's contract coverage keeps the traffic it saw. The key of the request plays no
   * part. An unknown id is `404`; the default workspace is kept (`409 CONFLICT`: its key
   * is the server's own; reset it instead).
   *
   * @example
   * ```ts
   * const { workspaceId } = await control.createWorkspace();
   * await control.deleteWorkspace(workspaceId);
   * ```
   */
  deleteWorkspace(workspaceId: string): Promise<ControlResult<'deleteWorkspace'>> {
    return this.json('deleteWorkspace', { pathParams: { id: workspaceId } });
  }

  /**
   * `GET /__control/clock`: Read the workspace's virtual clock.
   *
   * The workspace's virtual time, whether it is frozen, how many scheduler jobs are pending and when the next falls due. Changes nothing.
   */
  getClock(): Promise<ControlResult<'getClock'>> {
    return this.json('getClock');
  }

  /**
   * `GET /__control/clock/jobs`: List the jobs due next on the workspace's scheduler.
   *
   * The workspace's pending jobs in the order they will run (by due time, then by the
   * order they were scheduled): scheduled posts firing, publishing steps, webhook
   * retries, token expiries, scenario steps. The first `limit` of them, and how many
   * wait in all. Changes nothing; an advance or set runs them.
   *
   * @example
   * ```ts
   * const { data: [next] } = await control.listClockJobs({ limit: 1 });
   * ```
   */
  listClockJobs(query: ControlQuery<'listClockJobs'> = {}): Promise<ControlResult<'listClockJobs'>> {
    return this.json('listClockJobs', { query });
  }

  /**
   * `POST /__control/clock/advance`: Move virtual time forward, running everything that falls due.
   *
   * Moves the clock forward by `by` (an ISO 8601 duration such as `PT2H`; years and
   * months are refused, having no fixed length) or `ms`, exactly one of them. Every
   * job due on the way runs in time order, the clock standing at each job's instant
   * while it runs; the answer lists what ran. It also waits for the webhook requests
   * under way (those already in flight and those it starts), so retries they schedule
   * run in the same advance and `{ "ms": 0 }` simply waits for deliveries in flight.
   *
   * @example
   * ```ts
   * const { now, ran } = await control.advanceClock({ by: 'PT10S' });
   * ```
   */
  advanceClock(body: ControlBody<'advanceClock'>): Promise<ControlResult<'advanceClock'>> {
    return this.json('advanceClock', { body });
  }

  /**
   * `POST /__control/clock/set`: Move virtual time to an instant (forward only).
   *
   * Moves the virtual clock forward to `to`, running every job that falls due on the way, in order and each at its own instant, and answers with what ran. An instant before now is `400 VALIDATION_ERROR`.
   */
  setClock(body: ControlBody<'setClock'>): Promise<ControlResult<'setClock'>> {
    return this.json('setClock', { body });
  }

  /**
   * `POST /__control/clock/freeze`: Stop virtual time; only advance and set move it.
   *
   * Stops virtual time from running with the wall clock; from now on only `advance` and `set` move it.
   */
  freezeClock(): Promise<ControlResult<'freezeClock'>> {
    return this.json('freezeClock');
  }

  /**
   * `POST /__control/clock/resume`: Let virtual time run with the wall clock again.
   *
   * Lets virtual time run with the wall clock again, from where it stands.
   */
  resumeClock(): Promise<ControlResult<'resumeClock'>> {
    return this.json('resumeClock');
  }

  /**
   * `GET /__control/journal`: Read the workspace's recent requests, oldest first.
   *
   * The journal is a bounded ring (`--journal-size`, default 1000 per workspace): once
   * full, each new request replaces the oldest. Control calls are not recorded, except
   * the triggers on existing objects (`setPostOutcome`, `failWebhookDeliveries`,
   * `emitEvent`), which change the world as an API write does: each one carried out is
   * recorded under its operationId.
   *
   * @example
   * ```ts
   * const { data } = await control.getJournal({ operationId: 'createPost', status: 201 });
   * ```
   */
  getJournal(query: ControlQuery<'getJournal'> = {}): Promise<ControlResult<'getJournal'>> {
    return this.json('getJournal', { query });
  }

  /**
   * `POST /__control/keys`: Mint another API key for the workspace.
   *
   * Keys draw boundaries (one per tenant, a read-only key for a status page) but add no
   * throughput: every key of a workspace shares its one request budget. A `read` key
   * answers every GET of the API as a full key does and is refused every other
   * operation with `403 FORBIDDEN` (counted in the budget like any other refusal). The
   * control plane takes any key of the workspace, whatever its scope.
   *
   * @example
   * ```ts
   * const { apiKey } = await control.createApiKey({ scope: 'read' }); // for a status page
   * ```
   */
  createApiKey(body: ControlBody<'createApiKey'> = {}): Promise<ControlResult<'createApiKey'>> {
    return this.json('createApiKey', { body });
  }

  /**
   * `DELETE /__control/keys/{key}`: Revoke one of the workspace's API keys.
   *
   * The key stops working at once: the API answers it `401 UNAUTHORIZED`, as any key no
   * workspace has. A key this workspace does not have (another workspace's included) is
   * `404`. Two keys are kept, with `409 CONFLICT`: the server's default key (`--api-key`,
   * which the banner, the ready file and `run` hand out, and which a restart with `--data`
   * would bring back), and the workspace's last full key (a workspace always keeps a key
   * that can write).
   */
  revokeApiKey(key: string): Promise<ControlResult<'revokeApiKey'>> {
    return this.json('revokeApiKey', { pathParams: { key } });
  }

  /**
   * `GET /__control/limits`: Read the workspace's budget windows.
   *
   * Each window's count, limit, remaining calls and reset time, as the X-RateLimit headers would tell them now.
   */
  getLimits(): Promise<ControlResult<'getLimits'>> {
    return this.json('getLimits');
  }

  /**
   * `POST /__control/limits`: Switch the plan, drain or refill a budget, pre-load velocity.
   *
   * `velocity` adds publishes at the current virtual time to accounts' velocity windows (an
   * unknown account is 404), so the next publish meets the hourly or daily cap.
   * `plan` switches the workspace's plan (the new budgets apply at once). `drain` fills the
   * named windows to their limit at the current virtual time, so the next call is refused;
   * `refill` empties them. Lets a test reach a limit in one call instead of hundreds.
   *
   * @example
   * ```ts
   * await control.updateLimits({ drain: ['requests'] }); // the next API call answers 429
   * ```
   */
  updateLimits(body: ControlBody<'updateLimits'>): Promise<ControlResult<'updateLimits'>> {
    return this.json('updateLimits', { body });
  }

  /**
   * `POST /__control/events`: Emit an event for an existing object.
   *
   * Emits one of the 22 events for an object that exists in the workspace, its
   * payload built from the object's current state as the service would build it,
   * then `overrides` merged in (objects merge key by key, any other value,
   * arrays included, replaces; `stripe trigger … --override` is the model). The
   * event goes where every emitted event goes: to each enabled webhook subscribed
   * to it (logged and retried like any delivery), the event stream and the
   * automations (`comment.received` and `message.received` run them). The
   * object's state does not change. `objectId` names: a post for `post.*` events
   * other than `post.platform.*`, a destination for `post.platform.*`, an account
   * for `account.*`, a comment for `comment.*`, a message for `message.*`, a
   * conversation for `conversation.started`, a review for `review.new`, an
   * automation for `automation.*`, a webhook for `webhook.test` (sent to that
   * webhook only, as `POST /v1/webhooks/{id}/test` sends it). An id of another
   * kind of object is `400 VALIDATION_ERROR` (`param: objectId`); an unknown one
   * `404 NOT_FOUND` (`param: objectId`). Data (payload and overrides) over 64 KiB
   * of JSON is `400 VALIDATION_ERROR` (`param: overrides`): each event is kept in
   * every webhook's delivery log. Written to the journal under its operationId.
   *
   * @example
   * ```ts
   * const { event } = await control.emitEvent({ event: 'post.published', objectId: post.id, overrides: { post: { text: 'edited' } } });
   * ```
   */
  emitEvent(body: ControlBody<'emitEvent'>): Promise<ControlResult<'emitEvent'>> {
    return this.json('emitEvent', { body });
  }

  /**
   * `POST /__control/webhooks/{id}/faults`: Switch a webhook's delivery faults.
   *
   * Replaces the webhook's delivery faults with the ones sent (`{}` switches them
   * all off). They change how the mock sends, never what the API answers:
   * `duplicate` sends every attempt that is sent twice (same event id and attempt
   * number); `outOfOrder` holds each new event back until the next one has been
   * sent (or for 60 s of virtual time); `delayMs` postpones each new event's
   * first attempt by that much virtual time; `failStatus` fails attempts with that
   * status without sending them (the next `failCount` attempts, or all of them),
   * so retries and disabling run as if the receiver answered it. A delivery held
   * back goes out as soon as `outOfOrder` is switched off.
   *
   * @example
   * ```ts
   * await control.setWebhookFaults(webhook.id, { failStatus: 503, failCount: 2 });
   * ```
   */
  setWebhookFaults(webhookId: string, body: ControlBody<'setWebhookFaults'>): Promise<ControlResult<'setWebhookFaults'>> {
    return this.json('setWebhookFaults', { pathParams: { id: webhookId }, body });
  }

  /**
   * `POST /__control/webhooks/{id}/failures`: Fail a webhook's next delivery attempts.
   *
   * Makes the webhook's next `count` delivery attempts fail, each as the chosen
   * failure: `status` (the receiver answered that 4xx or 5xx), `timeout: true`
   * (no answer within the time-out) or `reset: true` (the connection was reset).
   * The attempts are not sent; each is logged in the webhook's delivery log as
   * that failure (`responseStatus` and `error`), and retries, the failure count
   * and disabling run on the virtual clock as after a real one. Retries and
   * manual attempts (test, redeliver) count among the `count`. It sets the
   * forced-failure part of the same delivery faults `POST
   * /__control/webhooks/{id}/faults` sets (`failStatus`, `failCount`), leaving
   * `duplicate`, `outOfOrder` and `delayMs` as they are, and answers all of them;
   * a later call replaces the forced failures. Written to the journal under its
   * operationId.
   *
   * @example
   * ```ts
   * await control.failWebhookDeliveries(webhook.id, { count: 2, status: 500 });
   * await control.failWebhookDeliveries(webhook.id, { count: 1, timeout: true });
   * ```
   */
  failWebhookDeliveries(webhookId: string, body: ControlBody<'failWebhookDeliveries'>): Promise<ControlResult<'failWebhookDeliveries'>> {
    return this.json('failWebhookDeliveries', { pathParams: { id: webhookId }, body });
  }

  /**
   * `POST /__control/webhooks/{id}/deliveries/{deliveryId}/redeliver`: Redeliver a webhook delivery.
   *
   * Sends the delivery's event again now, as `POST
   * /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver` does (a new attempt on the same
   * record, same event id and body, the next attempt number; a success cancels a pending
   * retry; `enabled` and `consecutiveFailures` stay as they are), and answers the record
   * after that attempt. For a client holding no API key of the workspace (the dashboard).
   * Written to the journal under its operationId.
   *
   * @example
   * ```ts
   * const delivery = await control.redeliverDelivery(webhook.id, failed.id);
   * ```
   */
  redeliverDelivery(webhookId: string, deliveryId: string): Promise<ControlResult<'redeliverDelivery'>> {
    return this.json('redeliverDelivery', { pathParams: { id: webhookId, deliveryId } });
  }

  /**
   * `POST /__control/posts/{id}/outcome`: Decide how a queued or scheduled post ends.
   *
   * Decides how a `queued` or `scheduled` post's destinations end when it fires,
   * instead of the network's answer: `published` (with an external id and URL
   * like any publish) or `failed` with `errorCode` (one of the codes of
   * openapi.yaml's error envelope, such as `PLATFORM_ERROR`) and `message` (a
   * default names the code). Without `accountId` it decides every destination;
   * with it, the destinations to that account (a later call overrides an earlier
   * one per destination). When the post fires, each destination ends as decided
   * at its usual time, with the events the real flow sends
   * (`post.platform.published` or `post.platform.failed` each, then
   * `post.published`, `post.partial` or `post.failed`); only published ones count
   * toward posting velocity, and a decided destination is not refused by the
   * velocity cap at fire time. A destination whose account was disconnected
   * meanwhile still fails with `ACCOUNT_RECONNECT_REQUIRED`. A post in any other
   * status is `409 CONFLICT`; an `accountId` the post does not publish to is `400
   * VALIDATION_ERROR` (`param: accountId`). Written to the journal under its
   * operationId.
   *
   * @example
   * ```ts
   * await control.setPostOutcome(post.id, { result: 'failed', errorCode: 'PLATFORM_ERROR' });
   * ```
   */
  setPostOutcome(postId: string, body: ControlBody<'setPostOutcome'>): Promise<ControlResult<'setPostOutcome'>> {
    return this.json('setPostOutcome', { pathParams: { id: postId }, body });
  }

  /**
   * `POST /__control/inbound/comments`: Someone comments on a published post.
   *
   * Adds a comment from a person to a published destination and emits `comment.received`
   * (which runs the account's `comment_to_dm` automations). The destination is named as in
   * `POST /v1/comments` (`destinationId` alone, or `post` with `accountId` for a network-native
   * id); with `accountId` alone it is that account's newest published post; with nothing, the
   * workspace's newest published post on a network with comments. `parentCommentId` (a network
   * comment id on the same post) makes it a reply. The network's comment limit applies
   * (`400 TEXT_TOO_LONG`); a network without comments answers `400 PLATFORM_NOT_SUPPORTED`.
   *
   * @example
   * ```ts
   * const { comment, events } = await control.receiveInboundComment({ text: 'Recipe please!' });
   * ```
   */
  receiveInboundComment(body: ControlBody<'receiveInboundComment'> = {}): Promise<ControlResult<'receiveInboundComment'>> {
    return this.json('receiveInboundComment', { body });
  }

  /**
   * `POST /__control/inbound/messages`: Someone writes a direct message to an account.
   *
   * A person writes into `conversationId`, into their conversation with the account
   * (`senderId`), or opens a new conversation (a new person when `senderId` is left out).
   * Emits `conversation.started` for a new conversation, then `message.received`; the message
   * that opens a conversation runs the account's `welcome_dm` automations. The account defaults
   * to the oldest account with an inbox (`bluesky`, `instagram`, `facebook`). `text: null` with
   * `attachmentUrl` sends an attachment alone (`instagram` and `facebook` only). The network's
   * inbox limit applies (`400 TEXT_TOO_LONG`). The message also opens the 24-hour messaging
   * window of that conversation.
   */
  receiveInboundMessage(body: ControlBody<'receiveInboundMessage'> = {}): Promise<ControlResult<'receiveInboundMessage'>> {
    return this.json('receiveInboundMessage', { body });
  }

  /**
   * `POST /__control/inbound/story-replies`: Someone replies to an account's story.
   *
   * On `instagram` and `facebook` a story reply arrives as a direct message in the person's
   * conversation (opened when needed). The story is the destination named (`destinationId`, or
   * `post` as for comments: a published `stories` post of the last 24 hours), else the account's
   * newest live story, else one published outside the service. Emits `conversation.started`
   * when new and `message.received`, and runs the account's `story_reply` automations (only
   * those, even when the reply opens the conversation).
   */
  receiveInboundStoryReply(body: ControlBody<'receiveInboundStoryReply'> = {}): Promise<ControlResult<'receiveInboundStoryReply'>> {
    return this.json('receiveInboundStoryReply', { body });
  }

  /**
   * `POST /__control/inbound/reviews`: Someone reviews a page.
   *
   * Adds a review to a `facebook` page (the oldest one when `accountId` is left out) and emits
   * `review.new`. A review has a `recommendation` or, as older reviews do, a star `rating`, not
   * both; with neither, a recommendation is drawn from the seed.
   */
  receiveInboundReview(body: ControlBody<'receiveInboundReview'> = {}): Promise<ControlResult<'receiveInboundReview'>> {
    return this.json('receiveInboundReview', { body });
  }

  /**
   * `POST /__control/accounts/{id}/status`: Set an account's status as the network would.
   *
   * Moves a connected account to `active`, `expired`, `revoked` or `error`, as if the network had
   * changed it. `expired` sends `account.expired` (the token is taken to have run out now unless
   * `tokenExpiresAt` says otherwise); `active` from another status sends `account.reconnected`
   * (a token that had run out becomes a fresh one); `revoked` and `error` send no event (the
   * catalog has none for them). `authHealth` defaults to `healthy` for `active` and
   * `action_required` otherwise. The token's expiry job follows: an active account whose token
   * expires expires (or renews, with `canAutoRenew`) on the virtual clock.
   *
   * @example
   * ```ts
   * await control.setAccountStatus(accountId, { status: 'expired' });
   * ```
   */
  setAccountStatus(accountId: string, body: ControlBody<'setAccountStatus'>): Promise<ControlResult<'setAccountStatus'>> {
    return this.json('setAccountStatus', { pathParams: { id: accountId }, body });
  }

  /**
   * `GET /__control/wallet`: Read the workspace wallet.
   *
   * A `payg` workspace pays each new connected account from its wallet (50.00 USD and 5.00 per
   * account to start); too little credit makes a connect answer `402 INSUFFICIENT_WALLET`. A
   * `free` workspace does not use the wallet: it has `accountSlots` accounts at most
   * (`402 PLAN_LIMIT_REACHED` beyond). Reconnects never bill.
   */
  getWallet(): Promise<ControlResult<'getWallet'>> {
    return this.json('getWallet');
  }

  /**
   * `POST /__control/wallet`: Set the wallet's balance or price per account.
   *
   * Sets the pay-as-you-go wallet's balance, its price per connected account, or both, and answers the wallet.
   */
  setWallet(body: ControlBody<'setWallet'>): Promise<ControlResult<'setWallet'>> {
    return this.json('setWallet', { body });
  }

  /**
   * `POST /__control/reset`: Bring the workspace back to its start.
   *
   * Clears the workspace back to how it was made: its fixtures, its scenario (the one
   * given at creation, by `--scenario` or loaded last with `POST /__control/scenarios`),
   * its clock start, an empty scheduler and journal. Its id and keys stay.
   */
  resetWorkspace(): Promise<ControlResult<'resetWorkspace'>> {
    return this.json('resetWorkspace');
  }

  /**
   * `GET /__control/state`: Take a snapshot of the workspace's whole world.
   *
   * Everything the workspace holds, as JSON: its data in every store, its pending
   * scheduler jobs, its clock, its scenario with the rules' counters. `PUT` it back
   * (here or into another workspace) to return to this moment. Reading it changes
   * nothing.
   *
   * @example
   * ```ts
   * const snapshot = await control.getState();
   * // ... the test changes things ...
   * await control.putState(snapshot);
   * ```
   */
  getState(): Promise<ControlResult<'getState'>> {
    return this.json('getState');
  }

  /**
   * `PUT /__control/state`: Restore a snapshot into the workspace.
   *
   * Replaces the workspace's world with a snapshot's and rebuilds its runtime from it
   * (clock, scheduler jobs). The workspace keeps its own id and keys, so a snapshot
   * of one workspace can seed another; its journal carries on. A snapshot that is not
   * one (`format`), of another version, or broken (a field of the wrong shape, a job
   * this build cannot run) answers 400 and changes nothing. Control bodies may be up
   * to 64 MB.
   */
  putState(body: ControlBody<'putState'>): Promise<ControlResult<'putState'>> {
    return this.json('putState', { body });
  }

  /**
   * `GET /__control/scenarios`: List the ready-made scenarios and the workspace's loaded one.
   *
   * The ready-made scenarios of `scenarios/`, and the workspace's loaded scenario with its rules' counters and state. Changes nothing.
   */
  listScenarios(): Promise<ControlResult<'listScenarios'>> {
    return this.json('listScenarios');
  }

  /**
   * `POST /__control/scenarios`: Load a scenario into the workspace.
   *
   * `{ name }` loads a ready-made scenario from `scenarios/`; `{ yaml }` loads one
   * given whole. The workspace starts afresh from it (like a reset, with the scenario
   * as its new start): its plan, seed, clock, fixtures, world, rules and timeline.
   * A scenario that cannot be used answers `400 INVALID_SCENARIO` naming
   * `file:line:column` and the reason (also in `details`); the workspace is then left
   * exactly as it was. One that would make more than 2,000 objects (its world's posts ×
   * destinations, and the posts, comments, messages and reviews of its timeline) is
   * refused so, at the entry that passes the cap, before anything is built.
   *
   * @example
   * ```ts
   * await control.loadScenario({ name: 'rate-limit-exhaustion' });
   * ```
   */
  loadScenario(body: ControlBody<'loadScenario'>): Promise<ControlResult<'loadScenario'>> {
    return this.json('loadScenario', { body });
  }

  /**
   * `GET /__control/rules`: List the workspace's active rules with their hit counts.
   *
   * Every rule the workspace tries, in the order requests meet them: those added at run
   * time (`source: runtime`, in the order added), then the loaded scenario's (`source:
   * scenario`, in file order). Each with what it matches and does and its counters:
   * `seen` (requests its matchers accepted), `fired` (requests it answered, its hits),
   * `phase` (`exhausted` once it fired `times` times; it is then listed but lets every
   * request pass) and `remaining`. Changes nothing.
   */
  listRules(): Promise<ControlResult<'listRules'>> {
    return this.json('listRules');
  }

  /**
   * `POST /__control/rules`: Add a rule to the running workspace.
   *
   * Adds one rule, written exactly as a rule of a scenario file (`docs/scenarios.md`,
   * `scenarios/scenario.schema.json`: `match`, `then`, `times`, `description`), to the
   * workspace as it runs, without a reset. `id` is optional here: without one the rule
   * gets `rule-1`, `rule-2`, …; an id another active rule has is `409 CONFLICT`. Run-time
   * rules are tried before the scenario's, in the order added. A relative `window` counts
   * from the moment the rule is added; `state` matchers and effects name the loaded
   * scenario's states. A rule that cannot be used is `400 INVALID_SCENARIO` naming the
   * field (`match.body[0].matches`) and changes nothing.
   *
   * Run-time rules are part of the workspace's data: a snapshot (`GET /__control/state`)
   * holds them with their counters and a restore brings them back; a reset or a scenario
   * load starts the workspace afresh, without them.
   *
   * @example
   * ```ts
   * const rule = await control.addRule({ match: { operationId: 'createPost' }, then: { error: { status: 429, code: 'VELOCITY_LIMITED' } }, times: 1 });
   * // ... the next createPost answers 429 ...
   * await control.removeRule(rule.id);
   * // A load balancer's 503 page, off the contract, twice:
   * await control.addRule({ match: { method: 'GET' }, then: { fault: { status: 503, retryAfter: 5 } }, times: 2 });
   * ```
   */
  addRule(body: ControlBody<'addRule'>): Promise<ControlResult<'addRule'>> {
    return this.json('addRule', { body });
  }

  /**
   * `DELETE /__control/rules/{id}`: Remove an active rule.
   *
   * Removes a rule, added at run time or the loaded scenario's (a reset brings a
   * scenario's rule back), and answers it as it was, with its final counters. An id no
   * active rule has is `404 NOT_FOUND`.
   */
  removeRule(ruleId: string): Promise<ControlResult<'removeRule'>> {
    return this.json('removeRule', { pathParams: { id: ruleId } });
  }
}
