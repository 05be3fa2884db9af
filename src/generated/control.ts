/* eslint-disable */
// Generated from control.yaml by `npm run generate` (openapi-typescript). Do not edit by hand.

export interface paths {
    "/__control/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tell whether the server is up
         * @description Answers while the server is up: its status, version, how many workspaces it holds and how many failures it contained (each a bug, logged with its stack). Needs no key and changes nothing.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the server's workspaces
         * @description Every workspace the server holds, the default one first: its plan, when it was
         *     created and last used (instants of its own virtual clock: its start, and where its
         *     clock stood at its last request), how long it has been idle (`idleMs`, wall
         *     milliseconds: what `--workspace-ttl` measures), about how large it is (`sizeBytes`,
         *     the length of its data as JSON) and what it holds open (pending scheduler jobs,
         *     whether a real timer is set, webhook requests in flight, open event streams).
         *     Changes nothing.
         */
        get: operations["listWorkspaces"];
        put?: never;
        /**
         * Create an isolated workspace and its API key
         * @description A fresh world with its own data, key, plan, virtual clock, scheduler and journal.
         *     Parallel test workers each create one on a shared server. By default it holds
         *     the fixture world generated from its seed; `fixtures: false` starts it empty, and
         *     `pending: false` keeps the fixture world without the posts and tokens that would
         *     act by themselves as the clock moves.
         *     `scenario` (the name of a ready-made scenario, or a whole scenario as YAML)
         *     sets up its world, rules and timeline; the body's own `plan`, `seed`, `fixtures`
         *     and `clock` win over the scenario's. A scenario that cannot be used answers
         *     `400 INVALID_SCENARIO` with `file:line:column` in the message and in `details`,
         *     and no workspace is made (so is one that would make more than 2,000 objects, as
         *     `POST /__control/scenarios` says). `from` (a workspace's id) forks that workspace instead:
         *     a copy of its whole world, clock included, with its own id and key; an unknown
         *     id is `404`. Under `--max-workspaces` a server that holds as many as it may
         *     answers `503 WORKSPACE_LIMIT_REACHED` naming the limit (or, with
         *     `--on-max-workspaces evict`, evicts the longest idle workspace to make room, once it
         *     has been idle 5 minutes, or `--workspace-ttl` when shorter: a workspace used more
         *     recently is never evicted, and the creation answers 503).
         */
        post: operations["createWorkspace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/workspaces/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace's id (`workspaceId`). */
                id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a workspace and release everything it holds
         * @description The workspace ends at once: its keys answer `401 UNAUTHORIZED` from now on, its
         *     scheduler stops (no job fires and no webhook attempt or retry is sent after; a
         *     request already on the wire is not called back), its open event streams close, and
         *     the server forgets its data and journal (with `--data`, it leaves the file). The
         *     server's contract coverage keeps the traffic it saw. The key of the request plays no
         *     part. An unknown id is `404`; the default workspace is kept (`409 CONFLICT`: its key
         *     is the server's own; reset it instead).
         */
        delete: operations["deleteWorkspace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/clock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the workspace's virtual clock
         * @description The workspace's virtual time, whether it is frozen, how many scheduler jobs are pending and when the next falls due. Changes nothing.
         */
        get: operations["getClock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/clock/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the jobs due next on the workspace's scheduler
         * @description The workspace's pending jobs in the order they will run (by due time, then by the
         *     order they were scheduled): scheduled posts firing, publishing steps, webhook
         *     retries, token expiries, scenario steps. The first `limit` of them, and how many
         *     wait in all. Changes nothing; an advance or set runs them.
         */
        get: operations["listClockJobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/clock/advance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move virtual time forward, running everything that falls due
         * @description Moves the clock forward by `by` (an ISO 8601 duration such as `PT2H`; years and
         *     months are refused, having no fixed length) or `ms`, exactly one of them. Every
         *     job due on the way runs in time order, the clock standing at each job's instant
         *     while it runs; the answer lists what ran. It also waits for the webhook requests
         *     under way (those already in flight and those it starts), so retries they schedule
         *     run in the same advance and `{ "ms": 0 }` simply waits for deliveries in flight.
         */
        post: operations["advanceClock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/clock/set": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move virtual time to an instant (forward only)
         * @description Moves the virtual clock forward to `to`, running every job that falls due on the way, in order and each at its own instant, and answers with what ran. An instant before now is `400 VALIDATION_ERROR`.
         */
        post: operations["setClock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/clock/freeze": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop virtual time; only advance and set move it
         * @description Stops virtual time from running with the wall clock; from now on only `advance` and `set` move it.
         */
        post: operations["freezeClock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/clock/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Let virtual time run with the wall clock again
         * @description Lets virtual time run with the wall clock again, from where it stands.
         */
        post: operations["resumeClock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/journal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the workspace's recent requests, oldest first
         * @description The journal is a bounded ring (`--journal-size`, default 1000 per workspace): once
         *     full, each new request replaces the oldest. Control calls are not recorded, except
         *     the triggers on existing objects (`setPostOutcome`, `failWebhookDeliveries`,
         *     `emitEvent`), which change the world as an API write does: each one carried out is
         *     recorded under its operationId.
         */
        get: operations["getJournal"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint another API key for the workspace
         * @description Keys draw boundaries (one per tenant, a read-only key for a status page) but add no
         *     throughput: every key of a workspace shares its one request budget. A `read` key
         *     answers every GET of the API as a full key does and is refused every other
         *     operation with `403 FORBIDDEN` (counted in the budget like any other refusal). The
         *     control plane takes any key of the workspace, whatever its scope.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/keys/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description One of the workspace's API keys. */
                key: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke one of the workspace's API keys
         * @description The key stops working at once: the API answers it `401 UNAUTHORIZED`, as any key no
         *     workspace has. A key this workspace does not have (another workspace's included) is
         *     `404`. Two keys are kept, with `409 CONFLICT`: the server's default key (`--api-key`,
         *     which the banner, the ready file and `run` hand out, and which a restart with `--data`
         *     would bring back), and the workspace's last full key (a workspace always keeps a key
         *     that can write).
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the workspace's budget windows
         * @description Each window's count, limit, remaining calls and reset time, as the X-RateLimit headers would tell them now.
         */
        get: operations["getLimits"];
        put?: never;
        /**
         * Switch the plan, drain or refill a budget, pre-load velocity
         * @description `velocity` adds publishes at the current virtual time to accounts' velocity windows (an
         *     unknown account is 404), so the next publish meets the hourly or daily cap.
         *     `plan` switches the workspace's plan (the new budgets apply at once). `drain` fills the
         *     named windows to their limit at the current virtual time, so the next call is refused;
         *     `refill` empties them. Lets a test reach a limit in one call instead of hundreds.
         */
        post: operations["updateLimits"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the workspace's events as Server-Sent Events
         * @description Keeps the response open and writes every event the workspace emits, the
         *     moment it is emitted, whether or not a webhook subscribes to it. Each message
         *     has `id` (the event id), `event` (its name) and `data` (the same JSON body a
         *     webhook receives). A comment line (`: connected`) is written first, so a
         *     client knows the stream is live. With `replay=true` the events the workspace
         *     still keeps (its last 1000, at most 4 MiB of data) come first. The stream ends when
         *     the client disconnects, the server closes, the workspace is deleted or evicted, or the
         *     key it was opened with is revoked (or no longer the workspace's after a restore);
         *     there are no keep-alive messages. A
         *     client that stops reading is cut off once 8 MiB wait for it (an `EventSource`
         *     reconnects; `replay=true` catches up). A workspace holds at most 32 streams open and
         *     the server half its connections; past either, `429 EVENT_STREAM_LIMIT_REACHED`.
         *
         *     With `requests=true` the stream also carries `request.recorded`, a control event
         *     that no webhook ever sends and `replay` does not repeat: one each time the
         *     workspace's journal records a request, with the entry as `GET /__control/journal`
         *     lists it in `data.entry` and `id` `journal_<seq>` (the dashboard's Requests view
         *     follows it). An API request answered while such a stream is open also carries
         *     `data.detail`: `requestHeaders`, `requestBody` (the JSON body as the mock read it, the
         *     contract's defaults filled in), `responseHeaders` and `responseBody` (bodies as text,
         *     each cut at 16 KB with `requestBodyTruncated` or
         *     `responseBodyTruncated` set; keys and tokens in headers shown by their last four
         *     characters only, and secrets in bodies and URLs (an `appPassword`, a webhook `secret`,
         *     tokens, sessions, and the names given with `--redact`) as `[REDACTED]`; a compressed
         *     answer decoded). The detail is sent once on the stream and never kept: the journal
         *     holds the entry alone.
         */
        get: operations["streamEvents"];
        put?: never;
        /**
         * Emit an event for an existing object
         * @description Emits one of the 22 events for an object that exists in the workspace, its
         *     payload built from the object's current state as the service would build it,
         *     then `overrides` merged in (objects merge key by key, any other value,
         *     arrays included, replaces; `stripe trigger … --override` is the model). The
         *     event goes where every emitted event goes: to each enabled webhook subscribed
         *     to it (logged and retried like any delivery), the event stream and the
         *     automations (`comment.received` and `message.received` run them). The
         *     object's state does not change. `objectId` names: a post for `post.*` events
         *     other than `post.platform.*`, a destination for `post.platform.*`, an account
         *     for `account.*`, a comment for `comment.*`, a message for `message.*`, a
         *     conversation for `conversation.started`, a review for `review.new`, an
         *     automation for `automation.*`, a webhook for `webhook.test` (sent to that
         *     webhook only, as `POST /v1/webhooks/{id}/test` sends it). An id of another
         *     kind of object is `400 VALIDATION_ERROR` (`param: objectId`); an unknown one
         *     `404 NOT_FOUND` (`param: objectId`). Data (payload and overrides) over 64 KiB
         *     of JSON is `400 VALIDATION_ERROR` (`param: overrides`): each event is kept in
         *     every webhook's delivery log. Written to the journal under its operationId.
         */
        post: operations["emitEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/webhooks/{id}/faults": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Switch a webhook's delivery faults
         * @description Replaces the webhook's delivery faults with the ones sent (`{}` switches them
         *     all off). They change how the mock sends, never what the API answers:
         *     `duplicate` sends every attempt that is sent twice (same event id and attempt
         *     number); `outOfOrder` holds each new event back until the next one has been
         *     sent (or for 60 s of virtual time); `delayMs` postpones each new event's
         *     first attempt by that much virtual time; `failStatus` fails attempts with that
         *     status without sending them (the next `failCount` attempts, or all of them),
         *     so retries and disabling run as if the receiver answered it. A delivery held
         *     back goes out as soon as `outOfOrder` is switched off.
         */
        post: operations["setWebhookFaults"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/webhooks/{id}/failures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fail a webhook's next delivery attempts
         * @description Makes the webhook's next `count` delivery attempts fail, each as the chosen
         *     failure: `status` (the receiver answered that 4xx or 5xx), `timeout: true`
         *     (no answer within the time-out) or `reset: true` (the connection was reset).
         *     The attempts are not sent; each is logged in the webhook's delivery log as
         *     that failure (`responseStatus` and `error`), and retries, the failure count
         *     and disabling run on the virtual clock as after a real one. Retries and
         *     manual attempts (test, redeliver) count among the `count`. It sets the
         *     forced-failure part of the same delivery faults `POST
         *     /__control/webhooks/{id}/faults` sets (`failStatus`, `failCount`), leaving
         *     `duplicate`, `outOfOrder` and `delayMs` as they are, and answers all of them;
         *     a later call replaces the forced failures. Written to the journal under its
         *     operationId.
         */
        post: operations["failWebhookDeliveries"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver a webhook delivery
         * @description Sends the delivery's event again now, as `POST
         *     /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver` does (a new attempt on the same
         *     record, same event id and body, the next attempt number; a success cancels a pending
         *     retry; `enabled` and `consecutiveFailures` stay as they are), and answers the record
         *     after that attempt. For a client holding no API key of the workspace (the dashboard).
         *     Written to the journal under its operationId.
         */
        post: operations["redeliverDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/posts/{id}/outcome": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide how a queued or scheduled post ends
         * @description Decides how a `queued` or `scheduled` post's destinations end when it fires,
         *     instead of the network's answer: `published` (with an external id and URL
         *     like any publish) or `failed` with `errorCode` (one of the codes of
         *     openapi.yaml's error envelope, such as `PLATFORM_ERROR`) and `message` (a
         *     default names the code). Without `accountId` it decides every destination;
         *     with it, the destinations to that account (a later call overrides an earlier
         *     one per destination). When the post fires, each destination ends as decided
         *     at its usual time, with the events the real flow sends
         *     (`post.platform.published` or `post.platform.failed` each, then
         *     `post.published`, `post.partial` or `post.failed`); only published ones count
         *     toward posting velocity, and a decided destination is not refused by the
         *     velocity cap at fire time. A destination whose account was disconnected
         *     meanwhile still fails with `ACCOUNT_RECONNECT_REQUIRED`. A post in any other
         *     status is `409 CONFLICT`; an `accountId` the post does not publish to is `400
         *     VALIDATION_ERROR` (`param: accountId`). Written to the journal under its
         *     operationId.
         */
        post: operations["setPostOutcome"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/inbound/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Someone comments on a published post
         * @description Adds a comment from a person to a published destination and emits `comment.received`
         *     (which runs the account's `comment_to_dm` automations). The destination is named as in
         *     `POST /v1/comments` (`destinationId` alone, or `post` with `accountId` for a network-native
         *     id); with `accountId` alone it is that account's newest published post; with nothing, the
         *     workspace's newest published post on a network with comments. `parentCommentId` (a network
         *     comment id on the same post) makes it a reply. The network's comment limit applies
         *     (`400 TEXT_TOO_LONG`); a network without comments answers `400 PLATFORM_NOT_SUPPORTED`.
         */
        post: operations["receiveInboundComment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/inbound/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Someone writes a direct message to an account
         * @description A person writes into `conversationId`, into their conversation with the account
         *     (`senderId`), or opens a new conversation (a new person when `senderId` is left out).
         *     Emits `conversation.started` for a new conversation, then `message.received`; the message
         *     that opens a conversation runs the account's `welcome_dm` automations. The account defaults
         *     to the oldest account with an inbox (`bluesky`, `instagram`, `facebook`). `text: null` with
         *     `attachmentUrl` sends an attachment alone (`instagram` and `facebook` only). The network's
         *     inbox limit applies (`400 TEXT_TOO_LONG`). The message also opens the 24-hour messaging
         *     window of that conversation.
         */
        post: operations["receiveInboundMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/inbound/story-replies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Someone replies to an account's story
         * @description On `instagram` and `facebook` a story reply arrives as a direct message in the person's
         *     conversation (opened when needed). The story is the destination named (`destinationId`, or
         *     `post` as for comments: a published `stories` post of the last 24 hours), else the account's
         *     newest live story, else one published outside the service. Emits `conversation.started`
         *     when new and `message.received`, and runs the account's `story_reply` automations (only
         *     those, even when the reply opens the conversation).
         */
        post: operations["receiveInboundStoryReply"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/inbound/reviews": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Someone reviews a page
         * @description Adds a review to a `facebook` page (the oldest one when `accountId` is left out) and emits
         *     `review.new`. A review has a `recommendation` or, as older reviews do, a star `rating`, not
         *     both; with neither, a recommendation is drawn from the seed.
         */
        post: operations["receiveInboundReview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/accounts/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of a connected account of the workspace. */
                id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set an account's status as the network would
         * @description Moves a connected account to `active`, `expired`, `revoked` or `error`, as if the network had
         *     changed it. `expired` sends `account.expired` (the token is taken to have run out now unless
         *     `tokenExpiresAt` says otherwise); `active` from another status sends `account.reconnected`
         *     (a token that had run out becomes a fresh one); `revoked` and `error` send no event (the
         *     catalog has none for them). `authHealth` defaults to `healthy` for `active` and
         *     `action_required` otherwise. The token's expiry job follows: an active account whose token
         *     expires expires (or renews, with `canAutoRenew`) on the virtual clock.
         */
        post: operations["setAccountStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the workspace wallet
         * @description A `payg` workspace pays each new connected account from its wallet (50.00 USD and 5.00 per
         *     account to start); too little credit makes a connect answer `402 INSUFFICIENT_WALLET`. A
         *     `free` workspace does not use the wallet: it has `accountSlots` accounts at most
         *     (`402 PLAN_LIMIT_REACHED` beyond). Reconnects never bill.
         */
        get: operations["getWallet"];
        put?: never;
        /**
         * Set the wallet's balance or price per account
         * @description Sets the pay-as-you-go wallet's balance, its price per connected account, or both, and answers the wallet.
         */
        post: operations["setWallet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bring the workspace back to its start
         * @description Clears the workspace back to how it was made: its fixtures, its scenario (the one
         *     given at creation, by `--scenario` or loaded last with `POST /__control/scenarios`),
         *     its clock start, an empty scheduler and journal. Its id and keys stay.
         */
        post: operations["resetWorkspace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Take a snapshot of the workspace's whole world
         * @description Everything the workspace holds, as JSON: its data in every store, its pending
         *     scheduler jobs, its clock, its scenario with the rules' counters. `PUT` it back
         *     (here or into another workspace) to return to this moment. Reading it changes
         *     nothing.
         */
        get: operations["getState"];
        /**
         * Restore a snapshot into the workspace
         * @description Replaces the workspace's world with a snapshot's and rebuilds its runtime from it
         *     (clock, scheduler jobs). The workspace keeps its own id and keys, so a snapshot
         *     of one workspace can seed another; its journal carries on. A snapshot that is not
         *     one (`format`), of another version, or broken (a field of the wrong shape, a job
         *     this build cannot run) answers 400 and changes nothing. Control bodies may be up
         *     to 64 MB.
         */
        put: operations["putState"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/scenarios": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the ready-made scenarios and the workspace's loaded one
         * @description The ready-made scenarios of `scenarios/`, and the workspace's loaded scenario with its rules' counters and state. Changes nothing.
         */
        get: operations["listScenarios"];
        put?: never;
        /**
         * Load a scenario into the workspace
         * @description `{ name }` loads a ready-made scenario from `scenarios/`; `{ yaml }` loads one
         *     given whole. The workspace starts afresh from it (like a reset, with the scenario
         *     as its new start): its plan, seed, clock, fixtures, world, rules and timeline.
         *     A scenario that cannot be used answers `400 INVALID_SCENARIO` naming
         *     `file:line:column` and the reason (also in `details`); the workspace is then left
         *     exactly as it was. One that would make more than 2,000 objects (its world's posts ×
         *     destinations, and the posts, comments, messages and reviews of its timeline) is
         *     refused so, at the entry that passes the cap, before anything is built.
         */
        post: operations["loadScenario"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace's active rules with their hit counts
         * @description Every rule the workspace tries, in the order requests meet them: those added at run
         *     time (`source: runtime`, in the order added), then the loaded scenario's (`source:
         *     scenario`, in file order). Each with what it matches and does and its counters:
         *     `seen` (requests its matchers accepted), `fired` (requests it answered, its hits),
         *     `phase` (`exhausted` once it fired `times` times; it is then listed but lets every
         *     request pass) and `remaining`. Changes nothing.
         */
        get: operations["listRules"];
        put?: never;
        /**
         * Add a rule to the running workspace
         * @description Adds one rule, written exactly as a rule of a scenario file (`docs/scenarios.md`,
         *     `scenarios/scenario.schema.json`: `match`, `then`, `times`, `description`), to the
         *     workspace as it runs, without a reset. `id` is optional here: without one the rule
         *     gets `rule-1`, `rule-2`, …; an id another active rule has is `409 CONFLICT`. Run-time
         *     rules are tried before the scenario's, in the order added. A relative `window` counts
         *     from the moment the rule is added; `state` matchers and effects name the loaded
         *     scenario's states. A rule that cannot be used is `400 INVALID_SCENARIO` naming the
         *     field (`match.body[0].matches`) and changes nothing.
         *
         *     Run-time rules are part of the workspace's data: a snapshot (`GET /__control/state`)
         *     holds them with their counters and a restore brings them back; a reset or a scenario
         *     load starts the workspace afresh, without them.
         */
        post: operations["addRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/rules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The id of an active rule (run-time or the scenario's). */
                id: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove an active rule
         * @description Removes a rule, added at run time or the loaded scenario's (a reset brings a
         *     scenario's rule back), and answers it as it was, with its final counters. An id no
         *     active rule has is `404 NOT_FOUND`.
         */
        delete: operations["removeRule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/__control/coverage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Report the contract coverage of the traffic so far
         * @description Counted over the server's lifetime (resets and restores keep the counts, and so does
         *     the deletion or eviction of a workspace: `workspacesWithTraffic` counts them all): which
         *     operations of openapi.yaml were called and answered with a status they declare,
         *     which declared statuses and error codes (those each operation's `x-error-codes` names)
         *     came up, which webhook events were delivered (a receiver answered 2xx) and which
         *     scenario rules fired.
         *     `scope=workspace` counts only the workspace of the request's key. `format=markdown`
         *     (or `table`) answers readable Markdown tables instead of JSON. `operations` limits the
         *     report to a client's own operations, as the command line's `--coverage-ops` does.
         */
        get: operations["getCoverage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ErrorResponse: {
            error: {
                /**
                 * @description The control plane's own codes, and any code of the API's ErrorResponse: the
                 *     inbound and account operations run the API's services and answer their errors.
                 * @example VALIDATION_ERROR
                 */
                code: string;
                message: string;
                param?: string;
                details?: {
                    [key: string]: unknown;
                };
            };
        };
        Health: {
            /** @enum {string} */
            status: "ok";
            /** @example 0.1.0 */
            version: string;
            /** @description How many workspaces the server holds. */
            workspaces: number;
            failures: components["schemas"]["ContainedFailures"];
        };
        /**
         * @description Failures the server caught where they happened since it started, each logged once with
         *     its stack (decision 0041). None should ever happen: each is a bug of the mock. A request
         *     still open was answered 500 INTERNAL_ERROR with the log line's id in `details.requestId`;
         *     the rest (a response's close handler, a timer, a webhook attempt, an event stream) ended
         *     only their own work, and the server went on serving every workspace.
         */
        ContainedFailures: {
            /** @example 0 */
            total: number;
            /** @description Where each was caught: `request` (a request's own steps), `response` (after the answer: journal, coverage, log), `timer`, `scheduler` (a job), `webhook` (a delivery attempt), `event-stream`, `mcp`, `proxy`, `file-write` (--data written in the background) and `server` (the HTTP server's own errors once it listens, such as a connection it could not accept). */
            byBoundary: {
                request: number;
                response: number;
                timer: number;
                scheduler: number;
                webhook: number;
                "event-stream": number;
                mcp: number;
                proxy: number;
                "file-write": number;
                server: number;
            };
        };
        /** @enum {string} */
        PlanName: "free" | "payg";
        WorkspaceList: {
            data: components["schemas"]["WorkspaceListing"][];
        };
        WorkspaceListing: {
            /** @example ws_3f9a1c2b7d4e */
            workspaceId: string;
            /** @description Whether this is the server's default workspace (never deleted nor evicted). */
            default: boolean;
            plan: components["schemas"]["PlanName"];
            /**
             * Format: date-time
             * @description Where the workspace's virtual clock started.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Where the workspace's virtual clock stood at its last request (its creation, when none since).
             */
            lastUsedAt: string;
            /** @description Wall milliseconds since its last request; what `--workspace-ttl` measures. */
            idleMs: number;
            /** @description About how much it holds, as the length of its data in JSON (what a snapshot of it weighs). A workspace made with the fixture world and not used yet holds only its identity and keys; its world is built on its first request. */
            sizeBytes: number;
            /** @description Scheduler jobs waiting for their instant (for a workspace not used yet, those its world starts with). */
            pendingJobs: number;
            /** @description Whether a real timer is set for its next job (a running clock with work pending; never for a workspace not used yet). */
            timerArmed: boolean;
            /** @description Webhook requests on the wire. */
            deliveriesInFlight: number;
            /** @description Open `GET /__control/events` streams. */
            eventStreams: number;
        };
        DeletedWorkspace: {
            /** @example ws_3f9a1c2b7d4e */
            workspaceId: string;
            /** @enum {boolean} */
            deleted: true;
            /** @description What it held that will never run nor be written to. */
            released: {
                pendingJobs: number;
                eventStreams: number;
            };
        };
        CreatedWorkspace: {
            /** @example ws_3f9a1c2b7d4e */
            workspaceId: string;
            /** @example sgw_test_5d41402abc4b2a76b9719d911017c592 */
            apiKey: string;
            plan: components["schemas"]["PlanName"];
            seed: number;
            /** @description Name of the scenario the workspace runs; null when none. */
            scenario: string | null;
            clock: components["schemas"]["Clock"];
        };
        Clock: {
            /** Format: date-time */
            now: string;
            frozen: boolean;
            /** @description Jobs waiting in the workspace's scheduler. */
            pendingJobs: number;
            /**
             * Format: date-time
             * @description When the earliest pending job falls due; null when none waits.
             */
            nextDueAt: string | null;
        };
        AdvanceClockBody: {
            /**
             * @description An ISO 8601 duration without years or months, such as PT2H or P1DT30M.
             * @example PT2H
             */
            by?: string;
            /** @description Milliseconds to move forward (at most ten years). */
            ms?: number;
        };
        SetClockBody: {
            /**
             * Format: date-time
             * @description The instant to move to; it must not be before the clock's time.
             */
            to: string;
        };
        PendingJob: {
            id: string;
            /** @example post.publish */
            kind: string;
            /**
             * @description What the job does, for people.
             * @example fire scheduled post 5f0c…
             */
            label: string;
            /** Format: date-time */
            dueAt: string;
        };
        PendingJobList: {
            /** @description The jobs due first, in the order they will run. */
            data: components["schemas"]["PendingJob"][];
            /** @description Jobs pending in all. */
            total: number;
        };
        RanJob: {
            id: string;
            /** @example post.publish */
            kind: string;
            label: string;
            /** Format: date-time */
            dueAt: string;
            ok: boolean;
            error?: string;
        };
        ClockMove: {
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            now: string;
            /**
             * @description The jobs that ran, in the order they ran: the first 1,000 of them. A move of years
             *     runs hundreds of thousands (token renewals), and listing them all made a 40 MB answer
             *     whose writing held the server for half a second; `ranTotal` counts them all.
             */
            ran: components["schemas"]["RanJob"][];
            /**
             * @description How many jobs ran, listed in `ran` or not.
             * @example 3
             */
            ranTotal: number;
            clock: components["schemas"]["Clock"];
        };
        JournalEntry: {
            seq: number;
            /** Format: date-time */
            at: string;
            method: string;
            /** @description The path as requested, without the query; a secret path parameter (a connect session's id) shows as `[REDACTED]`. */
            path: string;
            /** @description The query string as requested, without its `?`; empty when there was none. Secret parameters (tokens, OAuth codes, signatures, the `--redact` names) show as `[REDACTED]`. */
            query: string;
            operationId: string | null;
            /** @description The status answered; 0 when no answer was sent (a dropped or reset connection). */
            status: number;
            errorCode: string | null;
            durationMs: number;
            matchedRule: string | null;
            /**
             * @description What a scenario did (`error`, `respond`, `latency`, `drop`, `reset`, `malformed`, `unknownValues`, `outage`,
             *     `state`, `fault`, `truncated`, `drip`); several joined by `+` (`fault+drip`, `error+reset`: a reset mid-body).
             */
            effect: string | null;
            /**
             * @description What an error answer said, so the journal tells why the request got it: the envelope's
             *     `message` (secrets hidden, at most 500 characters), the `param` it names and its `details`
             *     (the limit that fired and when to retry, the scenario's file and line; kept when they fit in
             *     2 KiB of JSON). Absent when the answer carried no error envelope.
             */
            error?: {
                message: string;
                param?: string;
                details?: {
                    [key: string]: unknown;
                };
            };
            /**
             * @description The answer was an off-contract fault a rule injected: a `fault` (a proxy's 5xx page, an empty
             *     body), a `malformed` body, a body cut short (`truncated`, `reset` mid-body) or dripped slowly
             *     (`drip`), no answer (`drop`, `reset`), or a recorded answer (`respond`) that openapi.yaml does
             *     not describe for the operation (drift a replay reproduces). In proxy mode, the proxy's own
             *     answer in place of the upstream's (its 502 when the upstream gave none, `--strict`'s 502, a
             *     413). `--strict-responses` does not check such answers against the contract, and coverage
             *     counts them apart. The status is the one sent (also for a body cut short); 0 when none was.
             */
            injected: boolean;
            /** @description The answer's `Retry-After`, in seconds, when it carried one (a 429, a rule's 503); absent otherwise. */
            retryAfter?: number;
            /**
             * @description Who sent the request, to tell clients apart without showing their keys: the key's last four
             *     characters and the first product of its `User-Agent` (`key …ault, undici`). Absent on
             *     the control plane's own entries.
             */
            caller?: string;
            /**
             * @description Proxy mode only (`social-gateway-mock proxy`): what the exchange with the upstream broke of
             *     openapi.yaml, request and response; empty when nothing. Absent outside proxy mode. The answer
             *     carried those the contract does not tolerate, shortened, in its `X-Contract-Violations` header.
             */
            violations?: components["schemas"]["ContractFinding"][];
        };
        ContractFinding: {
            /** @enum {string} */
            side: "request" | "response";
            /**
             * @description What kind of difference, such as `undeclared-field`, `undeclared-status`, `undeclared-error-code`, `undeclared-enum-value`, `missing-required-field`, `wrong-format`, `wrong-type`.
             * @example undeclared-field
             */
            kind: string;
            /**
             * @description Where, as `status`, `header x-foo`, `query limit`, `path id`, or a JSON Pointer into the body without its `#` (`body/data/0/status`).
             * @example body/data/0/extra
             */
            field: string;
            message: string;
            /** @description Present and true when the contract allows it (a schema open to more properties, an open enumeration's new value): drift, not a violation; `--strict` lets it pass. */
            tolerated?: boolean;
        };
        JournalPage: {
            data: components["schemas"]["JournalEntry"][];
            size: number;
            capacity: number;
        };
        /**
         * @description What a key may do. `full`, every operation; `read`, the API's GET operations only (every other answers `403 FORBIDDEN`).
         * @enum {string}
         */
        KeyScope: "full" | "read";
        CreatedApiKey: {
            workspaceId: string;
            apiKey: string;
            scope: components["schemas"]["KeyScope"];
        };
        RevokedApiKey: {
            workspaceId: string;
            /** @description The key, which no longer works. */
            apiKey: string;
            scope: components["schemas"]["KeyScope"];
        };
        /**
         * @description `requests`: the per-minute budget of every endpoint; `analytics`: the per-second budget of GET /v1/analytics and GET /v1/analytics/timeline.
         * @enum {string}
         */
        BudgetName: "requests" | "analytics";
        BudgetWindow: {
            limit: number;
            /** @description Requests inside the window now. */
            count: number;
            remaining: number;
            /**
             * Format: date-time
             * @description When the oldest request in the window ages out (now, for an empty window).
             */
            resetAt: string;
            windowSeconds: number;
        };
        VelocityWindow: {
            /** @description Destinations that published in the window. */
            count: number;
            limit: number;
            /**
             * Format: date-time
             * @description hour: when the oldest publish in the window ages out (null when none); day: the next UTC midnight.
             */
            resetAt: string | null;
        };
        AccountVelocity: {
            accountId: string;
            platform: string;
            hour: components["schemas"]["VelocityWindow"];
            day: components["schemas"]["VelocityWindow"];
            /** @description Destinations admitted and not yet published or failed; they hold a place in both windows. */
            inFlight: number;
        };
        Limits: {
            /** @description Posting velocity of every connected account. */
            velocity: components["schemas"]["AccountVelocity"][];
            plan: components["schemas"]["PlanName"];
            budgets: {
                requests: components["schemas"]["BudgetWindow"];
                analytics: components["schemas"]["BudgetWindow"];
            };
        };
        UpdateLimitsBody: {
            plan?: components["schemas"]["PlanName"];
            drain?: components["schemas"]["BudgetName"][];
            refill?: components["schemas"]["BudgetName"][];
            /** @description Pre-loads accounts' velocity with publishes at the current virtual time. */
            velocity?: {
                accountId: string;
                published: number;
            }[];
        };
        WebhookFaults: {
            webhookId: string;
            faults: {
                duplicate: boolean;
                outOfOrder: boolean;
                delayMs: number;
                failStatus: number | null;
                /**
                 * @description Forced attempts fail as a time-out or a reset connection instead of a status (`POST /__control/webhooks/{id}/failures`).
                 * @enum {string|null}
                 */
                failError: "timeout" | "reset" | null;
                /** @description Forced failures still to come; null when every attempt fails (or none is forced). */
                failCount: number | null;
            };
        };
        /** @description One event sent to one webhook with all its attempts, as the API's `WebhookDelivery`. */
        WebhookDelivery: {
            id: string;
            webhookId: string;
            eventId: string;
            event: string;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            attempts: {
                attempt: number;
                /** Format: date-time */
                at: string;
                responseStatus: number | null;
                durationMs: number | null;
                error: string | null;
            }[];
            /** Format: date-time */
            nextAttemptAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            lastAttemptAt: string | null;
        };
        /**
         * @description How many attempts fail, and how; exactly one of `status`, `timeout` and `reset`.
         * @example {
         *       "count": 2,
         *       "status": 500
         *     }
         */
        WebhookFailuresBody: {
            /** @description How many of the next attempts fail. */
            count: number;
            /** @description The status the receiver seems to answer. */
            status?: number;
            /**
             * @description No answer arrives within the time-out (`responseStatus` null, `error` `timeout`).
             * @enum {boolean}
             */
            timeout?: true;
            /**
             * @description The connection is reset (`responseStatus` null, `error` `connection reset`).
             * @enum {boolean}
             */
            reset?: true;
        };
        /**
         * @example {
         *       "result": "failed",
         *       "errorCode": "PLATFORM_ERROR"
         *     }
         */
        PostOutcomeBody: {
            /** @enum {string} */
            result: "published" | "failed";
            /**
             * @description Required with `failed`, refused with `published`; one of the codes of openapi.yaml's error envelope.
             * @example PLATFORM_ERROR
             */
            errorCode?: string;
            /** @description The destinations' `errorMessage`, with `failed` only; a default names the code. */
            message?: string;
            /** @description Only the destinations to this account; every destination when omitted. */
            accountId?: string;
        };
        /** @description How a destination will end; null when the network decides. */
        DecidedOutcome: {
            /** @enum {string} */
            result: "published" | "failed";
            errorCode: string | null;
            message: string | null;
        } | null;
        /**
         * @example {
         *       "postId": "3f2a8c1e-5b7d-4e9f-a1c3-d5e7f9b1c3d5",
         *       "status": "scheduled",
         *       "destinations": [
         *         {
         *           "destinationId": "e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b",
         *           "accountId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *           "platform": "instagram",
         *           "outcome": {
         *             "result": "failed",
         *             "errorCode": "PLATFORM_ERROR",
         *             "message": "The network answered 503."
         *           }
         *         }
         *       ]
         *     }
         */
        PostOutcome: {
            postId: string;
            /** @enum {string} */
            status: "queued" | "scheduled";
            destinations: {
                destinationId: string;
                accountId: string;
                platform: string;
                outcome: components["schemas"]["DecidedOutcome"];
            }[];
        };
        /**
         * @description One of the 22 events of openapi.yaml.
         * @enum {string}
         */
        EventName: "post.scheduled" | "post.published" | "post.failed" | "post.partial" | "post.cancelled" | "post.deleted" | "post.platform.published" | "post.platform.failed" | "post.external.created" | "account.connected" | "account.disconnected" | "account.expired" | "account.reconnected" | "comment.received" | "comment.replied" | "message.received" | "message.sent" | "conversation.started" | "review.new" | "automation.triggered" | "automation.failed" | "webhook.test";
        /**
         * @example {
         *       "event": "post.published",
         *       "objectId": "3f2a8c1e-5b7d-4e9f-a1c3-d5e7f9b1c3d5"
         *     }
         */
        EmitEventBody: {
            event: components["schemas"]["EventName"];
            /** @description The object the payload is built from (see the operation). */
            objectId: string;
            /** @description Merged into the payload's `data`; objects key by key, anything else replaces. */
            overrides?: {
                [key: string]: unknown;
            };
        };
        EmittedEventResult: {
            event: components["schemas"]["EmittedEvent"];
            /** @description The webhook deliveries it made, one per webhook (their attempts go out at once). */
            deliveries: {
                webhookId: string;
                deliveryId: string;
            }[];
            automations: components["schemas"]["AutomationRun"][];
        };
        InboundCommentBody: {
            /** @description The destination commented on. */
            destinationId?: string;
            /** @description Service post id, or network-native post id with `accountId`. */
            post?: string;
            /** @description Alone, picks that account's newest published post. */
            accountId?: string;
            /** @description The network's own comment limit applies. */
            text?: string;
            /** @description Network comment id on the same post that this comment answers. */
            parentCommentId?: string;
            /** @description The commenter's network id (an automation writes to it). */
            authorId?: string;
            /** @description The commenter's handle; null when the network hides it. */
            username?: string | null;
            displayName?: string | null;
        };
        InboundMessageBody: {
            accountId?: string;
            /** @description Continue this conversation (its account is the one written to). */
            conversationId?: string;
            /** @description The person's network id; continues their conversation with the account when there is one. */
            senderId?: string;
            /** @description For a new conversation. */
            username?: string | null;
            /** @description For a new conversation. */
            displayName?: string | null;
            /** @description Null for an attachment alone. The network's inbox limit applies. */
            text?: string | null;
            /**
             * Format: uri
             * @description An image, video, audio file or PDF (by its extension); instagram and facebook only.
             */
            attachmentUrl?: string;
        };
        InboundStoryReplyBody: {
            accountId?: string;
            /** @description The story replied to. */
            destinationId?: string;
            post?: string;
            senderId?: string;
            username?: string | null;
            displayName?: string | null;
            text?: string;
        };
        InboundReviewBody: {
            accountId?: string;
            /** @enum {string} */
            recommendation?: "positive" | "negative";
            rating?: number;
            text?: string | null;
            reviewerName?: string | null;
        };
        /** @description An event the call emitted, as webhooks receive it. */
        EmittedEvent: {
            id: string;
            /** @example comment.received */
            event: string;
            /** Format: date-time */
            createdAt: string;
            workspaceId: string;
            data: {
                [key: string]: unknown;
            };
        };
        /** @description One automation the call set off. */
        AutomationRun: {
            automationId: string;
            kind: string;
            /** @enum {string} */
            outcome: "triggered" | "failed";
            /** @description The direct message it sent; null when it failed. */
            messageId: string | null;
            error: {
                code: string;
                message: string;
            } | null;
        };
        InboundCommentResult: {
            comment: components["schemas"]["Comment"];
            destinationId: string;
            events: components["schemas"]["EmittedEvent"][];
            automations: components["schemas"]["AutomationRun"][];
        };
        InboundMessageResult: {
            accountId: string;
            message: components["schemas"]["Message"];
            conversation: components["schemas"]["Conversation"];
            /** @description True when this message opened the conversation. */
            started: boolean;
            events: components["schemas"]["EmittedEvent"][];
            automations: components["schemas"]["AutomationRun"][];
        };
        InboundReviewResult: {
            accountId: string;
            review: components["schemas"]["Review"];
            events: components["schemas"]["EmittedEvent"][];
        };
        /** @description openapi.yaml's Comment (shape B). */
        Comment: {
            id: string;
            postId: string;
            accountId: string;
            platform: string;
            platformCommentId: string;
            parentId: string | null;
            text: string;
            username: string | null;
            likeCount: number | null;
            /** Format: date-time */
            createdAt: string | null;
            replies: components["schemas"]["Comment"][];
        };
        /** @description openapi.yaml's Message. */
        Message: {
            id: string;
            conversationId: string;
            text: string | null;
            senderId: string;
            /** Format: date-time */
            sentAt: string | null;
            attachments: {
                /** @enum {string} */
                type: "image" | "video" | "audio" | "file";
                /** Format: uri */
                url: string;
            }[];
        };
        /** @description openapi.yaml's Conversation. */
        Conversation: {
            id: string;
            members: {
                id: string;
                username: string | null;
                displayName: string | null;
            }[];
            muted: boolean;
            unreadCount: number;
            lastMessage: {
                id: string;
                text: string | null;
                /** Format: date-time */
                sentAt: string | null;
            } | null;
            /** Format: date-time */
            createdAt: string;
        };
        /** @description openapi.yaml's Review. */
        Review: {
            id: string;
            recommendation: string | null;
            rating: number | null;
            text: string | null;
            reviewerName: string | null;
            /** Format: date-time */
            createdAt: string;
        };
        /**
         * @example {
         *       "status": "expired"
         *     }
         */
        AccountStatusChange: {
            /** @enum {string} */
            status: "active" | "expired" | "revoked" | "error";
            /**
             * @description Default `healthy` for `active`, `action_required` otherwise.
             * @enum {string}
             */
            authHealth?: "healthy" | "action_required";
            /**
             * Format: date-time
             * @description The token's new expiry (null never expires); for `active` it must be later than now.
             */
            tokenExpiresAt?: string | null;
            /** @description Whether the token renews by itself when it runs out. */
            canAutoRenew?: boolean;
        };
        /** @description The account in the API's single-account shape. */
        AccountState: {
            id: string;
            platform: string;
            displayName: string;
            handle: string;
            avatarUrl: string | null;
            status: string;
            /** @enum {string} */
            authHealth: "healthy" | "action_required";
            canAutoRenew: boolean;
            /** Format: date-time */
            tokenExpiresAt: string | null;
            profile: string | null;
            metadata: {
                [key: string]: unknown;
            };
            microblogSubscriptionType?: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        Wallet: {
            plan: components["schemas"]["PlanName"];
            /** @example USD */
            currency: string;
            /** @example 5000 */
            balanceCents: number;
            /** @example 500 */
            pricePerAccountCents: number;
            /** @description New accounts paid from the wallet so far. */
            accountsBilled: number;
            connectedAccounts: number;
            /** @description The free plan's limit on connected accounts; null on payg. */
            accountSlots: number | null;
        };
        /**
         * @example {
         *       "balanceCents": 400
         *     }
         */
        WalletChange: {
            balanceCents?: number;
            pricePerAccountCents?: number;
        };
        WorkspaceSummary: {
            workspaceId: string;
            plan: components["schemas"]["PlanName"];
            seed: number;
            /** @description Name of the scenario the workspace runs; null when none. */
            scenario: string | null;
            clock: components["schemas"]["Clock"];
        };
        WorkspaceSnapshot: {
            /**
             * @description Marks a snapshot of this mock; anything else is refused.
             * @enum {string}
             */
            format: "social-gateway-mock/workspace";
            /** @enum {integer} */
            version: 1;
            /**
             * Format: date-time
             * @description The workspace's virtual time when the snapshot was taken.
             */
            takenAt: string;
            workspace: components["schemas"]["WorkspaceData"];
        };
        WorkspaceData: {
            id: string;
            plan: components["schemas"]["PlanName"];
            seed: number;
            apiKeys: string[];
            /** @description The scope of each key that is not a full key. A restore keeps the target workspace's keys and their scopes. */
            keyScopes?: {
                [key: string]: components["schemas"]["KeyScope"];
            };
            /** Format: date-time */
            createdAt: string;
            clock: {
                nowMs: number;
                frozen: boolean;
            };
            /** @description Position of the workspace's id stream. */
            idCounter: number;
            /** @description Pending scheduler jobs by id. */
            jobs: {
                [key: string]: components["schemas"]["JobRecord"];
            };
            /** @description Each capability's state, by store name (free-form per store). */
            stores: {
                [key: string]: Record<string, never>;
            };
            origin?: components["schemas"]["WorkspaceOrigin"];
        };
        JobRecord: {
            id: string;
            seq: number;
            dueAt: number;
            kind: string;
            label: string;
            data: Record<string, never>;
        };
        WorkspaceBase: {
            plan: components["schemas"]["PlanName"];
            seed: number;
            /** @description Where the virtual clock starts, in ms since 1970 (a clock cannot start before). */
            clockStartMs: number;
            clockFrozen: boolean;
            fixtures: boolean;
            /** @description false when the fixture world was built without its pending work; left out, it has it. */
            pending?: boolean;
        };
        /** @description How the workspace was made, so a reset returns to it. */
        WorkspaceOrigin: {
            base?: components["schemas"]["WorkspaceBase"];
            plan: components["schemas"]["PlanName"];
            seed: number;
            /** @description Where the virtual clock starts, in ms since 1970 (a clock cannot start before). */
            clockStartMs: number;
            clockFrozen: boolean;
            fixtures: boolean;
            /** @description false when the fixture world was built without its pending work; left out, it has it. */
            pending?: boolean;
            scenario: {
                name: string;
                file: string;
                yaml: string;
            } | null;
        };
        /** @description Exactly one of `name` and `yaml`. */
        LoadScenarioBody: {
            /**
             * @description A ready-made scenario, `scenarios/<name>.yaml`.
             * @example rate-limit-exhaustion
             */
            name?: string;
            /** @description A whole scenario as YAML. */
            yaml?: string;
        };
        ScenarioRuleView: {
            id: string;
            description: string | null;
            /** @enum {string} */
            phase: "armed" | "exhausted";
            /** @description Requests its matchers accepted. */
            seen: number;
            /** @description Times it answered. */
            fired: number;
            /** @description Its limit; null for none. */
            times: number | null;
        };
        ScenarioView: {
            name: string;
            description: string | null;
            /** Format: date-time */
            loadedAt: string;
            states: string[];
            state: string | null;
            rules: components["schemas"]["ScenarioRuleView"][];
            /** @description Steps scheduled when it was loaded. */
            timelineSteps: number;
        };
        LoadedScenario: {
            workspaceId: string;
            scenario: components["schemas"]["ScenarioView"];
            clock: components["schemas"]["Clock"];
        };
        ScenarioList: {
            available: {
                name: string;
                description: string | null;
            }[];
            loaded?: components["schemas"]["ScenarioView"];
        };
        CoverageRatio: {
            exercised: number;
            total: number;
            percent: number;
        };
        CoverageReport: {
            /** @enum {string} */
            scope: "server" | "workspace";
            /** @description The operations the report counts, when limited to a client's own (`operations`, `--coverage-ops`); absent when it counts every operation. */
            limitedTo?: string[];
            workspaceId: string | null;
            operations: components["schemas"]["CoverageRatio"];
            statuses: components["schemas"]["CoverageRatio"];
            errorCodes: components["schemas"]["CoverageRatio"];
            /** @description Successful webhook deliveries (a receiver answered 2xx), per event of the catalog. */
            webhookEvents: {
                exercised: number;
                total: number;
                percent: number;
                events: {
                    event: string;
                    count: number;
                }[];
            };
            rules: {
                workspaceId: string;
                scenario: string;
                ruleId: string;
                fired: number;
            }[];
            /** @description The rules of loaded scenarios that fired in no workspace (runtime rules aside), by scenario and rule id, with the number of workspaces that loaded the scenario. A scenario loaded into many workspaces (the kit's, one per test) counts a rule as fired when it fired in any of them. `run` names each at its end ("rule … never fired"), and `--fail-on-unfired-rules` makes them a failing exit. */
            unfiredRules: {
                scenario: string;
                ruleId: string;
                /** @description The workspaces that loaded the rule, the ended ones included. */
                workspaces: number;
            }[];
            byOperation: components["schemas"]["OperationCoverage"][];
            /** @description The live workspaces that made calls; those since deleted or evicted are counted together in `endedWorkspaces`. */
            workspaces: {
                workspaceId: string;
                calls: number;
                operationsExercised: number;
            }[];
            /** @description Every workspace that made a call over the server's lifetime, those since deleted or evicted included (the kit deletes its own). In a workspace's report, 1 or 0. */
            workspacesWithTraffic: number;
            /** @description The workspaces that made calls and have since been deleted or evicted, and how many calls they made; every count of the report keeps them. Zeros in a workspace's report. */
            endedWorkspaces: {
                count: number;
                calls: number;
            };
            /** @description Proxy mode only, in the server's report: how often the upstream's exchanges broke openapi.yaml, per operation and kind of finding. */
            contractFindings?: {
                /** @description Exchanges compared with the contract. */
                exchanges: number;
                /** @description Exchanges that broke the contract (at least one finding it does not tolerate). */
                withViolations: number;
                /** @description Exchanges whose every finding the contract allows (tolerated drift, such as an open enumeration's new value), counted apart from withViolations. */
                toleratedOnly: number;
                byOperation: {
                    /** @description Null for requests that matched no operation. */
                    operationId: string | null;
                    /** @enum {string} */
                    side: "request" | "response";
                    kind: string;
                    /** @description The contract allows it (an open enumeration's new value, an extra field where allowed), so it is drift but no violation. */
                    tolerated: boolean;
                    /** @description Exchanges that showed it (once per exchange, however many list items did). */
                    count: number;
                    /** @description Up to five of the fields it was found at, list indexes folded into `*` (`body/connections/*\/platform`). */
                    fields: string[];
                }[];
            };
        };
        OperationCoverage: {
            operationId: string;
            method: string;
            path: string;
            calls: number;
            /** @description Requests that got no answer at all (a scenario dropped or reset the connection). */
            noResponse: number;
            /** @description Requests a scenario rule answered with an off-contract fault, or a proxy answered itself in place of the upstream (see the journal's `injected`); counted in `calls`, never in `statuses` or `errorCodes`. */
            injected: number;
            /** @description At least one answer had a status the contract declares for the operation. */
            exercised: boolean;
            statuses: {
                status: number;
                count: number;
                declared: boolean;
            }[];
            /** @description Declared statuses no answer has had yet. */
            missingStatuses: number[];
            errorCodes: {
                code: string;
                count: number;
                declared: boolean;
            }[];
            /** @description Error codes the contract's examples name for the operation that no answer has had yet. */
            missingErrorCodes: string[];
        };
        /**
         * @description One rule, as a scenario file writes it (see docs/scenarios.md, Rules). Beyond the shape
         *     below, the rule is checked as a scenario's is: against `scenarios/scenario.schema.json`
         *     and the checks a schema cannot make; a problem is `400 INVALID_SCENARIO` naming the field.
         */
        RuleBody: {
            /** @description The rule's id; `rule-<n>` when left out. */
            id?: string;
            description?: string;
            /** @description The matchers (`operationId`, `method`, `path`, `account`, `platform`, `params`, `headers`, `body`, `nth`, `every`, `window`, `probability`, `state`); every one given must hold. */
            match?: {
                [key: string]: unknown;
            };
            /** @description What the rule does (`error`, `respond`, `latencyMs`, `drop`, `reset`, `malformed`, `unknownValues`, `state`, and the off-contract faults `fault`, `truncated`, `drip`, `reset: { afterBytes }`). */
            then: {
                [key: string]: unknown;
            };
            /** @description Fire at most this many times; the rule is then `exhausted`, still listed, and lets every request pass. */
            times?: number;
        };
        ActiveRule: {
            id: string;
            description: string | null;
            /**
             * @description `runtime`: added with `POST /__control/rules`; `scenario`: the loaded scenario's.
             * @enum {string}
             */
            source: "runtime" | "scenario";
            /** @description The scenario a `scenario` rule belongs to; null for a run-time rule. */
            scenario: string | null;
            /**
             * Format: date-time
             * @description Virtual time the rule was added (a scenario's rule, the scenario's load).
             */
            addedAt: string | null;
            /** @description The matchers as the mock applies them (account references resolved to ids, windows to instants in `fromMs`/`untilMs`, the path also as `pathPattern`). */
            match: {
                [key: string]: unknown;
            };
            /** @description What the rule does. */
            then: {
                [key: string]: unknown;
            };
            times: number | null;
            /** @enum {string} */
            phase: "armed" | "exhausted";
            /** @description Requests its matchers accepted. */
            seen: number;
            /** @description Requests it answered (its hits). */
            fired: number;
            /** @description How many more times it may fire; null without `times`. */
            remaining: number | null;
        };
        RuleList: {
            data: components["schemas"]["ActiveRule"][];
        };
    };
    responses: {
        /**
         * @description The mock's own answer under `--strict-responses` (which the test suite always uses) when the
         *     response it was about to send would break this contract (control.yaml): `CONTRACT_VIOLATION`, with the
         *     operation, the status and the problems in `details`. It is a bug report about the mock, never
         *     an answer of the real service, so contract coverage and scenario rules leave it out
         *     (`x-mock-only`).
         */
        ContractViolation: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "CONTRACT_VIOLATION",
                 *         "message": "The mock's response broke its own contract (getClock 200): body must have required property 'now'",
                 *         "details": {
                 *           "operationId": "getClock",
                 *           "status": 200,
                 *           "problems": [
                 *             "body must have required property 'now'"
                 *           ]
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description Only with `--data`: the change was made but the data file could not be written (the disk is
         *     full, the directory is gone or not writable, or the data cannot be serialised), so it is not
         *     acknowledged (`DATA_FILE_UNWRITABLE`; `details` names the file and the reason). A success is
         *     answered only once the change is in the file (synced and renamed into place). The change stays
         *     in memory and is saved by the next write that succeeds, or lost if the server stops first; each
         *     write tries again, and until one succeeds every write answers 503 while reads still answer. The
         *     real service has no such answer, so contract coverage and scenario rules leave it out
         *     (`x-mock-only`).
         */
        DataFileUnwritable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "DATA_FILE_UNWRITABLE",
                 *         "message": "The change is not acknowledged: the data file /srv/mock/state.json cannot be written (ENOSPC: no space left on device, write). It stays in memory and is saved by the next write that succeeds, or lost if the server stops first; until then every write answers 503.",
                 *         "details": {
                 *           "file": "/srv/mock/state.json",
                 *           "reason": "ENOSPC: no space left on device, write"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The request is invalid (a bad field, a query parameter the operation does not take, malformed JSON). */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The control token or the API key is wrong. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "UNAUTHORIZED",
                 *         "message": "This server requires x-control-token on control calls."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description On a server started with `--control-token`, a workspace's key reaches only its own
         *     workspace: this call reaches another workspace or the whole server (`x-access: server`,
         *     `x-workspace-id` naming another workspace, a fork from another, `scope=server`), or writes
         *     with a read-only key. Send the control token for it.
         */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "FORBIDDEN",
                 *         "message": "listWorkspaces reaches beyond one workspace; on this server it needs the control token (x-control-token)."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The resource, or one the request names, does not exist in this workspace. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "NOT_FOUND",
                 *         "message": "Account 'acct_1' was not found in this workspace.",
                 *         "param": "destinationId"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The key cannot be revoked (`CONFLICT`), being the server's default key or the workspace's last full key. */
        KeyConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "CONFLICT",
                 *         "message": "This is the workspace's last full key; mint another full key before revoking it.",
                 *         "param": "key"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The body is larger than the server accepts. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "PAYLOAD_TOO_LARGE",
                 *         "message": "The request body is larger than the server accepts."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The body is missing or not `application/json`. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "UNSUPPORTED_MEDIA_TYPE",
                 *         "message": "Send the body as application/json."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The object's state does not allow the call (a post that is no longer queued or scheduled). */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "CONFLICT",
                 *         "message": "Post '3f2a8c1e-5b7d-4e9f-a1c3-d5e7f9b1c3d5' is published; only a queued or scheduled post can still be given an outcome."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description The workspace, or the whole server, holds as many open event streams as it may
         *     (`EVENT_STREAM_LIMIT_REACHED`): 32 per workspace, whatever key or token opened them, and
         *     on the server half of the connections its limit of open files allows (`server.maxConnections`,
         *     three quarters of that limit). `details` names which cap (`scope`), the cap (`limit`) and how many are
         *     open. Close a stream (or let a tab go) before opening another. The real service has no
         *     such stream, so contract coverage and scenario rules leave it out (`x-mock-only`).
         */
        EventStreamLimitReached: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "EVENT_STREAM_LIMIT_REACHED",
                 *         "message": "This workspace has 32 event streams open, the most one workspace may hold (32); close one before opening another.",
                 *         "details": {
                 *           "scope": "workspace",
                 *           "limit": 32,
                 *           "open": 32
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description The server holds as many workspaces as `--max-workspaces` allows (`WORKSPACE_LIMIT_REACHED`),
         *     the default one included; `details` names the limit. Delete one first, or start the server
         *     with `--on-max-workspaces evict` to have the longest idle one evicted instead (only one idle
         *     at least 5 minutes, or `--workspace-ttl` when shorter). With `--data`,
         *     also `DATA_FILE_UNWRITABLE` when the data file cannot be written (see `DataFileUnwritable`).
         */
        WorkspaceLimitReached: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The default workspace cannot be deleted (`CONFLICT`). */
        WorkspaceConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "CONFLICT",
                 *         "message": "The default workspace cannot be deleted; reset it instead (POST /__control/reset).",
                 *         "param": "id"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description Another active rule of the workspace has this id, or the workspace already holds 1,000 rules added at run time, the cap (`CONFLICT`; `details.limit`). */
        RuleConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "CONFLICT",
                 *         "message": "A rule with the id 'fail-next-post' is already active in this workspace; remove it first (DELETE /__control/rules/fail-next-post) or pick another id.",
                 *         "param": "id"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
    };
    parameters: never;
    requestBodies: {
        /** @description The new workspace's plan, seed, fixtures (and their pending work), clock and scenario; every field optional. */
        CreateWorkspaceBody: {
            content: {
                "application/json": {
                    plan?: components["schemas"]["PlanName"];
                    /** @description Seed of the workspace's ids and fake data; the same seed gives the same world. */
                    seed?: number;
                    /**
                     * @description Whether to load the fixture world; false starts the workspace empty.
                     * @default true
                     */
                    fixtures?: boolean;
                    /**
                     * @description Whether the fixture world keeps the work it has of its own (true when left out):
                     *     its queued, processing and scheduled posts, which go out as the clock moves
                     *     and send their webhooks, and the tokens of its accounts, which renew or run out.
                     *     `false` builds it without them: those posts are left out and the tokens of its
                     *     active accounts do not expire (`tokenExpiresAt: null`), so the workspace has no
                     *     pending job and a clock move delivers only what the client did. The vitest kit
                     *     asks for `false` unless told otherwise. It changes nothing without the fixture world.
                     */
                    pending?: boolean;
                    clock?: {
                        /**
                         * Format: date-time
                         * @description Virtual time the workspace starts at; the server's clock start by default.
                         */
                        start?: string;
                        /** @description Whether the clock starts frozen; the server's setting by default. */
                        frozen?: boolean;
                    };
                    /**
                     * @description A ready-made scenario's name (`rate-limit-exhaustion`; lowercase letters,
                     *     digits and dashes), or anything else: a whole scenario as YAML.
                     * @example network-outage
                     */
                    scenario?: string;
                    /**
                     * @description Fork: the id of an existing workspace whose whole world as it stands (every
                     *     store, pending jobs, clock, scenario and rules) the new workspace starts
                     *     with, under its own id and key; from then on the two are independent. It
                     *     takes no other field (`400` naming `from`); an unknown id is `404`.
                     */
                    from?: string;
                };
            };
        };
        /** @description The webhook's delivery faults; `{}` clears them. */
        WebhookFaultsBody: {
            content: {
                "application/json": {
                    /** @default false */
                    duplicate?: boolean;
                    /** @default false */
                    outOfOrder?: boolean;
                    /**
                     * @description Virtual milliseconds (at most a day).
                     * @default 0
                     */
                    delayMs?: number;
                    /** @description The status forced attempts fail with. */
                    failStatus?: number;
                    /** @description How many attempts fail; all of them when omitted. Needs `failStatus`. */
                    failCount?: number;
                };
            };
        };
    };
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server is up. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            500: components["responses"]["ContractViolation"];
        };
    };
    listWorkspaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspaces. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["CreateWorkspaceBody"];
        responses: {
            /** @description The workspace was created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWorkspace"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["WorkspaceLimitReached"];
        };
    };
    deleteWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace's id (`workspaceId`). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspace was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedWorkspace"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["WorkspaceConflict"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clock and what is due next. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Clock"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    listClockJobs: {
        parameters: {
            query?: {
                /** @description How many of the jobs due first to return. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The jobs due next, earliest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingJobList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    advanceClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdvanceClockBody"];
            };
        };
        responses: {
            /** @description Time moved and due work ran. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClockMove"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    setClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetClockBody"];
            };
        };
        responses: {
            /** @description Time moved and due work ran. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClockMove"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    freezeClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clock is frozen. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Clock"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    resumeClock: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clock runs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Clock"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getJournal: {
        parameters: {
            query?: {
                /** @description How many of the most recent entries to return. */
                limit?: number;
                /** @description Only entries whose `seq` is greater than this. */
                after?: number;
                /** @description Only entries for this operation. One that is no operationId of openapi.yaml or control.yaml (a typo, which would match nothing) is refused with 400 VALIDATION_ERROR naming the nearest. */
                operationId?: string;
                /** @description Only entries with this HTTP method. */
                method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
                /** @description Only entries answered with this status (0 for no answer at all). */
                status?: number;
                /** @description Only entries a scenario rule with this id intercepted. */
                matchedRule?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Journal entries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JournalPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The key's scope; `full` when left out. */
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "scope": "read"
                 *     }
                 */
                "application/json": {
                    scope?: components["schemas"]["KeyScope"];
                };
            };
        };
        responses: {
            /** @description The new key. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description One of the workspace's API keys. */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokedApiKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["KeyConflict"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The windows. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Limits"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    updateLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateLimitsBody"];
            };
        };
        responses: {
            /** @description The windows after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Limits"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /** @description Send the kept recent events first, oldest first. */
                replay?: boolean;
                /** @description Also send `request.recorded` for each request the workspace's journal records. */
                requests?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example : connected to ws_default
                     *
                     *     id: evt_5b0c3f1e9a7d4c2b8e6f0a1d3c5e7f90
                     *     event: post.published
                     *     data: {"id":"evt_5b0c3f1e9a7d4c2b8e6f0a1d3c5e7f90","event":"post.published","createdAt":"2026-03-02T09:00:05.000Z","workspaceId":"ws_default","data":{"post":{"id":"…"}}}
                     */
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["EventStreamLimitReached"];
            500: components["responses"]["ContractViolation"];
        };
    };
    emitEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmitEventBody"];
            };
        };
        responses: {
            /** @description The event emitted, where it was delivered and what it set off. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmittedEventResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    setWebhookFaults: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["WebhookFaultsBody"];
        responses: {
            /** @description The faults now in force. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookFaults"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    failWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookFailuresBody"];
            };
        };
        responses: {
            /** @description The webhook's delivery faults now in force. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookFaults"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    redeliverDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id. */
                id: string;
                /** @description One of the webhook's deliveries. */
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery record after the attempt. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    setPostOutcome: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The post's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PostOutcomeBody"];
            };
        };
        responses: {
            /** @description The post and the outcome now decided for each destination. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostOutcome"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    receiveInboundComment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["InboundCommentBody"];
            };
        };
        responses: {
            /** @description The comment, and what it set off. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundCommentResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    receiveInboundMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["InboundMessageBody"];
            };
        };
        responses: {
            /** @description The message, its conversation, and what it set off. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundMessageResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    receiveInboundStoryReply: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["InboundStoryReplyBody"];
            };
        };
        responses: {
            /** @description The reply as a message, its conversation, and what it set off. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundMessageResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    receiveInboundReview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["InboundReviewBody"];
            };
        };
        responses: {
            /** @description The review, and the events it caused. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundReviewResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    setAccountStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of a connected account of the workspace. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountStatusChange"];
            };
        };
        responses: {
            /** @description The account after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountState"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getWallet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The wallet. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    setWallet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WalletChange"];
            };
        };
        responses: {
            /** @description The wallet after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    resetWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspace as it starts again. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceSummary"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getState: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The snapshot. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceSnapshot"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    putState: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkspaceSnapshot"];
            };
        };
        responses: {
            /** @description The snapshot was restored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceSummary"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listScenarios: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ready-made scenarios, and the loaded scenario with its rules' counters. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScenarioList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    loadScenario: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoadScenarioBody"];
            };
        };
        responses: {
            /** @description The scenario is loaded. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoadedScenario"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The active rules. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuleList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
    addRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuleBody"];
            };
        };
        responses: {
            /** @description The rule is active; its id is the one given, or the one it was given. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActiveRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["RuleConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    removeRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The id of an active rule (run-time or the scenario's). */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule that was removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActiveRule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getCoverage: {
        parameters: {
            query?: {
                scope?: "server" | "workspace";
                format?: "json" | "markdown" | "table";
                /**
                 * @description Comma-separated operationIds of openapi.yaml; the report counts only these (an unknown one is a 400).
                 * @example createPost,getPost,listPosts
                 */
                operations?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The coverage report. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CoverageReport"];
                    "text/markdown": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["ContractViolation"];
        };
    };
}
