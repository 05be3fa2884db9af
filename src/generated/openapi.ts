/* eslint-disable */
// Generated from openapi.yaml by `npm run generate` (openapi-typescript). Do not edit by hand.

export interface paths {
    "/v1/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List connections
         * @description Lists every connected account of the workspace in the connection shape. Not paged.
         */
        get: operations["listConnections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connections/{platform}/connect": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lowercase network identifier, for example `bluesky` or `instagram`. */
                platform: components["parameters"]["PlatformPath"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Connect an account
         * @description Connects a social account on the network named in the path. The reference publishes two forms; the
         *     mock uses **one path for every network** and a body holding the union of both, plus a third form
         *     that completes a connect the owner has signed in to:
         *
         *     - `bluesky` (app-password connect): `identifier` and `appPassword` are required; `reconnectId`
         *       re-authorizes an existing connection (no plan slot is used, nothing is billed; `profileName` is
         *       then ignored) and sends `account.reconnected`. Answers `200 { connection }` and sends
         *       `account.connected`. The mock refuses the app password `fail-fail-fail-fail` as the network
         *       would refuse a wrong one (`400 VALIDATION_ERROR`, `param: appPassword`); every other
         *       well-formed password signs in. An account already connected answers `409 CONFLICT`.
         *     - OAuth networks: `redirectUrl` is required: any absolute URI, an app's deep link such as
         *       `myapp://oauth/done` included; `javascript:`, `data:`, `vbscript:`, `file:` and `blob:` answer
         *       `400 VALIDATION_ERROR` (`param: redirectUrl`). `headless` starts a connect session
         *       whose candidates are listed at `GET /v1/connect-sessions/{sessionId}/candidates`; `loginMethod`
         *       applies to `instagram` only (`facebook_login` leads to
         *       `GET /v1/connections/oauth/instagram/accounts`). Answers `200 { type: oauth, url, expiresAt }`;
         *       the owner signs in at `url` (the mock's own page under `/__oauth/`) before `expiresAt`
         *       (15 minutes of the workspace's virtual time). Approving redirects (303) to `redirectUrl` with
         *       `connectSession` and `platform`, plus `accountId` when the account was connected at once (a
         *       plain connect); with `tempToken` and `platform` after `facebook_login`; or with `error`
         *       (`ACCESS_DENIED`, `SESSION_EXPIRED`, `INSUFFICIENT_WALLET`, `PLAN_LIMIT_REACHED`,
         *       `PLATFORM_ERROR`). Query parameters already in `redirectUrl` are kept.
         *     - Completing a headless or `facebook_login` connect: `connectSession` (or `tempToken`) with
         *       `candidateId` (a candidate's `id`, or a pending account's `instagramAccountId`) connects that
         *       candidate and answers `200 { connection }`. The choice stays open for one hour of virtual time
         *       after the sign-in; each candidate connects once (`409 CONFLICT` after). `profileName` and
         *       `metadata` come from the connect that started the session.
         *
         *     Fields that do not apply to the named network or form are refused with `400 VALIDATION_ERROR`
         *     naming them. `profileName` files the connection under that profile (created if missing; default:
         *     the workspace default profile, created when the workspace has none). `metadata` is stored and
         *     returned on the account.
         *
         *     Billing: a new account on a `payg` workspace costs the wallet's price per account (default
         *     5.00 of a 50.00 balance; see `/__control/wallet`); too little credit answers
         *     `402 INSUFFICIENT_WALLET`. A `free` workspace has no wallet but 15 account slots; a 16th account
         *     answers `402 PLAN_LIMIT_REACHED`. Reconnects never bill and use no slot.
         */
        post: operations["connectAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connections/{id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get connection stats
         * @description Reads the account's current stats from the network. The reference publishes the id field as
         *     `accountId` or `connectionId`; the mock uses **`accountId`**. Stats keys per network (the reference
         *     names only the `tiktok` ones): `tiktok` followerCount, followingCount, likesCount, videoCount;
         *     `twitter` followersCount, followingCount, tweetCount, listedCount; `bluesky` followersCount,
         *     followsCount, postsCount; `instagram` followersCount, followsCount, mediaCount; `facebook`
         *     followersCount, fanCount, ratingCount, overallStarRating (null without star ratings); `threads`
         *     followersCount, postsCount; `pinterest` followerCount, followingCount, pinCount, boardCount,
         *     monthlyViews; `linkedin` followerCount, connectionCount; `reddit` linkKarma, commentKarma,
         *     totalKarma; `youtube` subscriberCount, viewCount, videoCount. `stats` is null while the account
         *     is not `active` (the network refuses its token). On `facebook`, `include` adds
         *     `messengerProfile` and/or `reviews` (newest first, `limit` of them); on other networks these
         *     include values answer `400 PLATFORM_NOT_SUPPORTED`. While the network is down: `502 PLATFORM_ERROR`.
         */
        get: operations["getConnectionStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connections/{id}/media": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * List the account's media on the network
         * @description Lists the media the account published on the network, newest first. The reference publishes a
         *     default page size of 10 or 20; the mock uses **20** (maximum 20). The page uses the names
         *     `items` and `nextCursor` (no `hasMore`). An account that is not `active` answers
         *     `400 ACCOUNT_RECONNECT_REQUIRED`; while the network is down, `502 PLATFORM_ERROR`.
         */
        get: operations["listConnectionMedia"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connections/{id}/tiktok/creator-info": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get short-video creator info
         * @description Reads the creator info of a `tiktok` connection (privacy levels and interaction settings to offer before posting). Other networks answer `400 PLATFORM_NOT_SUPPORTED`; an account that is not `active`, `400 ACCOUNT_RECONNECT_REQUIRED`; while the network is down, `502 PLATFORM_ERROR`.
         */
        get: operations["getCreatorInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connections/{id}/pinterest/boards": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * List pin boards
         * @description Lists the boards of a `pinterest` connection (use a board id as `boardId` of a destination). Other networks answer `400 PLATFORM_NOT_SUPPORTED`; an account that is not `active`, `400 ACCOUNT_RECONNECT_REQUIRED`; while the network is down, `502 PLATFORM_ERROR`.
         */
        get: operations["listPinBoards"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connections/{id}/bluesky/settings": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update decentralized-network settings
         * @description Sets the default post languages of a `bluesky` connection (BCP 47 tags, no repeats); `null` clears them. Other networks answer `400 PLATFORM_NOT_SUPPORTED`. The settings are kept by the service, so they can be changed whatever the account's status.
         */
        patch: operations["updateBlueskySettings"];
        trace?: never;
    };
    "/v1/connect-sessions/{sessionId}/candidates": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The `connectSession` value the redirect URL received. */
                sessionId: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        /**
         * List connect candidates of a headless session
         * @description Lists the pages, or page-linked photo-sharing accounts, that the owner can connect in a headless
         *     connect session; connect one with `POST /v1/connections/{platform}/connect` and
         *     `{ connectSession, candidateId }`. `sessionId` is the `connectSession` value the redirect URL
         *     received. For a plain (not headless) connect or a reconnect, it lists the account that was
         *     connected. A session that is unknown, not signed in yet, denied, expired, or older than one hour
         *     after its sign-in answers `404 NOT_FOUND`.
         */
        get: operations["listConnectCandidates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/connections/oauth/instagram/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pending photo-sharing accounts
         * @description After connecting `instagram` with `loginMethod` `facebook_login`, lists the page-linked accounts the
         *     owner can connect, for the `tempToken` the redirect URL received. Connect one with
         *     `POST /v1/connections/instagram/connect` and `{ tempToken, candidateId }` (its `instagramAccountId`).
         *     An unknown or expired token (one hour after the sign-in) answers `404 NOT_FOUND`.
         */
        get: operations["listPendingInstagramAccounts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List accounts
         * @description Lists connected accounts in the single-account shape. `since`/`until` filter on the connection time (no default limit).
         */
        get: operations["listAccounts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get an account
         * @description Returns one connected account (bare, not wrapped). A disconnected account is no longer returned.
         */
        get: operations["getAccount"];
        put?: never;
        post?: never;
        /**
         * Disconnect an account
         * @description Disconnects the account and sends the `account.disconnected` webhook event (a DisconnectedAccount record). The account is no longer returned.
         */
        delete: operations["disconnectAccount"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}/reconnect": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reconnect an account
         * @description Re-authorizes an account; a reconnect never adds a billed account and keeps the account's id.
         *     OAuth networks answer `{ type: oauth, url, expiresAt }` (`redirectUrl` is required with an API key:
         *     any absolute URI, an app's deep link included, but not `javascript:`, `data:`, `vbscript:`, `file:`
         *     or `blob:`; `identifier` and `appPassword` are refused there); the owner signs in again with the same account
         *     at `url`. Approving brings the account back `active` and `healthy` with a fresh token, sends
         *     `account.reconnected` and redirects to `redirectUrl` with `connectSession`, `platform` and
         *     `accountId`; a sign-in that finishes after `expiresAt` (15 minutes of virtual time) returns to the
         *     redirect URL with `error=SESSION_EXPIRED`, a denied one with `error=ACCESS_DENIED`.
         *     `bluesky` takes `appPassword` (required) and `identifier` (default: the account's handle; it must
         *     name the same account), ignores `redirectUrl`, reconnects at once and answers
         *     `{ type: account, ...reconnected account }`.
         */
        post: operations["reconnectAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get account insights
         * @description Daily account insights read from the network, oldest first, one point per finished UTC day since
         *     the account was connected. `since`/`until` filter on the insights period (a day is listed when it
         *     overlaps the range); without them the network's default period applies (the last 28 days on
         *     `facebook` and `instagram`, 30 days elsewhere). A range longer than 90 days answers
         *     `400 INVALID_RANGE`. Values a network does not report are null. An account that is not `active`
         *     answers `400 ACCOUNT_RECONNECT_REQUIRED`; while the network is down, `502 PLATFORM_ERROR`.
         */
        get: operations["getAccountAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import posts published outside the service
         * @description With `url` or `platformPostId`, looks for that one post among the account's 20 most recent posts on
         *     the network; with neither, syncs the 20 most recent posts. Found posts are added with `source`
         *     `external` (and `post.external.created` is sent for each new one). `data` is empty when nothing
         *     matched. `skipped` is true when the account was synced in the last 15 seconds; then only posts
         *     already known are returned. Items use the single-account post shape (AccountPost). An account that
         *     is not `active` answers `400 ACCOUNT_RECONNECT_REQUIRED`; a network that fails answers `502 PLATFORM_ERROR`.
         */
        post: operations["syncAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}/reviews": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * List page reviews
         * @description Lists the page reviews of a `facebook` account, newest first. Other networks answer `400 PLATFORM_NOT_SUPPORTED`.
         */
        get: operations["listReviews"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List profiles
         * @description Lists the workspace's profiles, oldest first (the default profile comes first).
         */
        get: operations["listProfiles"];
        put?: never;
        /**
         * Create a profile
         * @description Creates a profile. A name already used in the workspace answers `409 CONFLICT`.
         */
        post: operations["createProfile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a profile
         * @description Deletes a profile. Its connections stay connected and are no longer filed under a profile. The workspace default profile cannot be deleted (`409 CONFLICT`).
         */
        delete: operations["deleteProfile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/presign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a presigned upload URL
         * @description Returns a URL to upload one file to. The caller then sends `PUT uploadUrl` with the file and a
         *     `Content-Type` equal to the declared `contentType`, and uses `publicUrl` in `mediaUrls` of a post.
         */
        post: operations["presignMedia"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List uploaded media
         * @description Lists the workspace's uploaded media, newest first. `since`/`until` filter on the upload time (no default limit), by the reference's shared list rules.
         */
        get: operations["listMedia"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List posts
         * @description Lists posts in the grouped shape. `since`/`until` filter on the schedule time, else the publish time, else the creation time (no default limit).
         */
        get: operations["listPosts"];
        put?: never;
        /**
         * Create a post
         * @description Creates a post with one or more destinations (one call counts as one API call). Without
         *     `scheduledFor` the post is `queued` and publishes at once (`processing`, then `published` or
         *     `failed` per destination; a post with some destinations published is `published`); with it, the
         *     post is `scheduled` and fires at that local time in `timezone` (both are required together; a
         *     local time skipped by a DST change moves forward by the length of the gap, a repeated one means
         *     its first occurrence). Publishing past an account's velocity cap answers `429 VELOCITY_LIMITED`
         *     (nested envelope, with `Retry-After`); a scheduled post that hits the cap at fire time fails and
         *     `post.platform.failed` carries `VELOCITY_LIMITED`.
         *
         *     The whole request is checked before anything is created:
         *     - `connectionId` must name a connection of this workspace, once per request (else
         *       `400 VALIDATION_ERROR` naming `destinations[i].connectionId`); a connection that is not
         *       `active` answers `400 ACCOUNT_RECONNECT_REQUIRED` naming it.
         *     - A text longer than the network's limit (`twitter` 280, 25000 with a premium
         *       `microblogSubscriptionType`; `bluesky` 300; `threads` and `pinterest` 500; `instagram` and
         *       `tiktok` 2200; `linkedin` 3000; `youtube` 5000; `facebook` 63206; `reddit` 40000; counted in
         *       Unicode code points) answers `400 TEXT_TOO_LONG` naming `destinations[i].text`, `text` or
         *       `thread[j]`, with `details: { limit, length, platform }`.
         *     - Destination fields apply only on their network (`quoteMicroblogPostId`: `twitter`;
         *       `privacyLevel`, `disableComment`, `disableDuet`, `disableStitch`, `brandOrganicToggle`,
         *       `brandContentToggle`: `tiktok`; `title`: `reddit`, `youtube`, `pinterest`; `privacyStatus`,
         *       `thumbnailUrl`: `youtube`; `description`: `youtube`, `pinterest`; `boardId`: `pinterest`;
         *       `link`: `pinterest`, `facebook`, `linkedin`, `reddit`; `subreddit`, `flairId`, `flairText`,
         *       `nsfw`, `spoiler`: `reddit`); elsewhere `400 VALIDATION_ERROR` names `destinations[i].<field>`.
         *       Required: `reddit` `subreddit` and `title`; `pinterest` `boardId`; `youtube` `title`.
         *     - Media: `mediaKind` defaults from `mediaUrls` (none: `text`; one: `video` for a .mp4, .mov,
         *       .m4v or .webm path, else `image`; several: `multi-image`) and must agree with it (`text` none,
         *       `image`, `video` and `stories` one, `multi-image` 2 to 10). `instagram` and `pinterest` need
         *       media, `tiktok` and `youtube` a video (`400 VALIDATION_ERROR` naming `mediaUrls` when there is
         *       none); a kind the network cannot publish (`stories` outside `instagram` and `facebook`, an
         *       image on `tiktok` or `youtube`) answers `400 PLATFORM_NOT_SUPPORTED` naming `mediaKind`.
         *       `twitter` and `bluesky` take at most 4 images, `pinterest` 5 (`400 VALIDATION_ERROR` naming
         *       `mediaUrls`).
         *     - `thread` (2 to 25 items, none empty) publishes on `twitter`, `bluesky` and `threads` only
         *       (`400 PLATFORM_NOT_SUPPORTED` naming `thread`) and replaces `text`: sending a non-empty `text`
         *       or a destination `text` with it is `400 VALIDATION_ERROR`.
         *     - A post without media needs text (`reddit`: a title is enough).
         *     - `scheduledFor` needs `timezone` and the reverse; an unknown zone, a date that does not exist or
         *       a time not in the future answers `400 VALIDATION_ERROR` naming the field.
         *
         *     The reference lists no `Idempotency-Key` for this operation, so none is honoured: a repeat
         *     creates another post, as the real service would (decision 0049). A 429 created nothing and can be
         *     sent again; after a lost answer, look for the post (`GET /v1/posts`) before sending it again.
         */
        post: operations["createPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get a post
         * @description One post with every destination's status, network ids, errors and latest metrics. An id from another workspace answers `404 NOT_FOUND`.
         */
        get: operations["getPost"];
        put?: never;
        post?: never;
        /**
         * Delete a post remotely
         * @description Deletes a published post from its networks; the post and its published destinations become `deleted` and `post.deleted` is sent. A post that is not published answers `409 CONFLICT` (cancel a scheduled post instead).
         */
        delete: operations["deletePost"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a scheduled post
         * @description Cancels a `scheduled` post; the post and its destinations become `cancelled` and `post.cancelled` is sent. A post that is not scheduled answers `409 CONFLICT`.
         */
        post: operations["cancelPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/posts/{id}/analytics/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get a post's daily metrics timeline
         * @description One point per UTC day that has a reading (a day without a reading has no point), oldest first.
         *     `since` defaults to 90 days before `until`; `until` defaults to now. The first day covered is the UTC
         *     day of `since`, the last the UTC day in which the range ends (`until` is exclusive, so an `until` at
         *     midnight UTC ends the range on the day before). A range over 90 days answers
         *     `400 INVALID_RANGE`. Not available for `twitter` posts (`400 PLATFORM_NOT_SUPPORTED`).
         */
        get: operations["getPostAnalyticsTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List metrics per published destination
         * @description Normalized metrics of each published destination, newest publish first. `since`/`until` filter on the publish time. Uses the per-second analytics budget (`X-RateLimit-*` describe that window).
         */
        get: operations["getAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/analytics/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the workspace's daily metrics timeline
         * @description Daily metrics summed over the matching destinations, one point per UTC day with a reading, oldest first. Same range rules as the post timeline (default and maximum 90 days). Uses the per-second analytics budget.
         */
        get: operations["getAnalyticsTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List comments
         * @description Lists comments (shape B) on a published destination, newest first. Identify the destination with `destinationId` alone, or with `post` (a service post id, or a network-native post id together with `accountId`).
         */
        get: operations["listComments"];
        put?: never;
        /**
         * Comment on a post
         * @description Comments on a published destination, or replies to a comment with `parentCommentId`. Identify the
         *     destination as for listing comments. The reference publishes two body forms (text up to 25000 or up
         *     to 2000); the mock uses **1 to 25000**, and the network's own limit still applies
         *     (`400 TEXT_TOO_LONG`). Answers shape A wrapped as `{ comment }`.
         */
        post: operations["createComment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/comments/{id}/replies": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Comment id from the comment list or a comment event; works only in the workspace that received it. */
                id: components["parameters"]["CommentId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reply to a comment
         * @description Replies as the account that published the post. `id` is a comment id from the comment list or a
         *     comment event, and works only in the workspace that received it. The network's own limit applies
         *     (for example 300 characters on `bluesky`, 2200 on `instagram`); a longer text answers
         *     `400 TEXT_TOO_LONG`. Answers shape B, not wrapped.
         */
        post: operations["replyToComment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/comments/like": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Like a comment
         * @description Likes a comment on a published destination. Supported on `facebook`; other networks answer `400 PLATFORM_NOT_SUPPORTED`.
         */
        post: operations["likeComment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/likes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Like a post
         * @description Likes a published `twitter` destination as the account that published it. Identify the destination with `destinationId` alone, or with `post` (service post id, or native post id with `accountId`). Other networks answer `400 PLATFORM_NOT_SUPPORTED`.
         */
        post: operations["likePost"];
        /**
         * Unlike a post
         * @description Removes the like set by `likePost`. Same body rules.
         */
        delete: operations["unlikePost"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reposts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Repost a post
         * @description Reposts (retweet-style) a published `twitter` destination. Other networks answer `400 PLATFORM_NOT_SUPPORTED`.
         */
        post: operations["repost"];
        /**
         * Undo a repost
         * @description Removes the repost.
         */
        delete: operations["undoRepost"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/bookmarks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bookmark a post
         * @description Bookmarks a published `twitter` destination. Other networks answer `400 PLATFORM_NOT_SUPPORTED`.
         */
        post: operations["bookmarkPost"];
        /**
         * Remove a bookmark
         * @description Removes the bookmark.
         */
        delete: operations["removeBookmark"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quotes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Quote a post
         * @description Publishes a quote post of a published `twitter` destination, as the account that published it. The `twitter` text limit applies (`400 TEXT_TOO_LONG`). Other networks answer `400 PLATFORM_NOT_SUPPORTED`. The quote is a post that went out, so it counts toward the account's posting velocity (`429 VELOCITY_LIMITED` past a cap, with `Retry-After`), and it fires `post.platform.published` and `post.published` like any published post.
         */
        post: operations["quotePost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inbox/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List conversations
         * @description Lists the account's direct-message conversations, most recent activity first. Supported on `bluesky`, `instagram` and `facebook`; other networks answer `400 PLATFORM_NOT_SUPPORTED`. Pages with `cursor` in the response (null on the last page).
         */
        get: operations["listConversations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a conversation
         * @description Starts a conversation with `recipientId` (the person's network id: a DID on `bluesky`, a numeric id on
         *     `instagram` and `facebook`) and, with `text`, sends a first message (plain text, so the 24-hour rule of
         *     the extras does not apply). Supported on `bluesky`, `instagram` and `facebook`; other networks answer
         *     `400 PLATFORM_NOT_SUPPORTED`. When the account already has a conversation with the person, that one is
         *     answered with `200` (and `text` is sent into it).
         */
        post: operations["createConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}/conversations/{conversationId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
                /** @description Conversation id from the conversation list, create-conversation or an inbox webhook; works only in the workspace that received it. */
                conversationId: components["parameters"]["ConversationId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a message
         * @description Sends a direct message in a conversation. `conversationId` comes from the conversation list,
         *     create-conversation or an inbox webhook, and works only in the workspace that received it.
         *     Network limits apply (1000 characters on `bluesky` and `instagram`, 2000 on `facebook`;
         *     `400 TEXT_TOO_LONG`). `attachmentUrl`, `quickReplies`, `buttons` and `cards` are for `instagram` and
         *     `facebook` only (`400 PLATFORM_NOT_SUPPORTED` elsewhere); `attachmentUrl` cannot be combined with
         *     `buttons` or `cards` (`400 VALIDATION_ERROR`). Those extras can only be sent within 24 hours of the
         *     person's last message: later they answer `400 MESSAGING_WINDOW_CLOSED` naming the field. Plain text
         *     is not held to the window. Sending marks the conversation read (`unreadCount` 0).
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhooks
         * @description Lists the workspace's webhooks, newest first.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook
         * @description Registers a URL that receives the chosen events as `POST` requests of a WebhookEvent (see
         *     `callbacks`). The event `id` is stable across retries. A delivery succeeds on any 2xx within 10 s;
         *     otherwise it is retried at +1 min, +5 min, +30 min, +2 h and +6 h, each wait counted from the
         *     attempt before (six attempts over 8 h 36 min). Redirects are not followed and count as failures.
         *     After 10 consecutive event deliveries that failed every attempt, the webhook is disabled (`enabled`
         *     false, `disabledReason` `too_many_failures`) and its pending retries end. With a `secret`, each
         *     request carries `X-Gateway-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`. A URL with user
         *     information (`https://user:pass@host/hook`) is delivered to `https://host/hook` with
         *     `Authorization: Basic base64(user:pass)`; every answer shows it with the password masked
         *     (`https://user:***@host/hook`), and a PATCH that sends the masked URL back keeps the password.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get a webhook
         * @description One webhook: its URL, events, whether it is enabled and why not. The `secret` is never returned.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook
         * @description Deletes the webhook; pending retries are dropped.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Update a webhook
         * @description Changes only the sent fields. Setting `enabled` true on a disabled webhook re-enables it and resets `consecutiveFailures` and `disabledReason`. Setting it false ends the pending retries (those deliveries become `failed`; redeliver them later). The secret cannot be changed; create a new webhook to rotate it.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends a `webhook.test` event to the webhook now (also when it does not subscribe to it, and also when it is disabled) and answers the delivery record after the attempt. A test delivery is attempted once, never retried, and does not count toward disabling.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * List deliveries
         * @description The webhook's delivery log, newest first. `since`/`until` filter on the delivery's `createdAt`;
         *     the default is the 7 days before `until` (or now), and a `since` older than the plan's log
         *     retention starts at the oldest kept delivery. Retention: `free` 3 days, `payg` 30 days, and at
         *     most the 1000 newest deliveries per webhook on any plan. `facets` and `histogram` count the
         *     deliveries in the range that match `event`, whatever `status` asks for. Histogram buckets are
         *     aligned to UTC and sized by the range: up to 1 h → 1 min, 6 h → 5 min, 2 days → 1 h,
         *     14 days → 6 h, longer → 1 day; empty buckets are included.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
                /** @description Id of a delivery record of the webhook. */
                deliveryId: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver an event
         * @description Sends the delivery's event again now, as a new attempt on the same delivery record (same event `id` and body, the next attempt number), and answers the record after that attempt. It works on a disabled webhook too, and changes neither `enabled` nor `consecutiveFailures`; a success cancels a pending retry.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/automations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List automations
         * @description Lists the workspace's automations, newest first.
         */
        get: operations["listAutomations"];
        put?: never;
        /**
         * Create an automation
         * @description Creates a rule that answers with a direct message: `comment_to_dm` answers a comment,
         *     `story_reply` answers a story reply, `welcome_dm` answers a message. The rule runs when the text
         *     contains any keyword and none of `excludeKeywords` (matching ignores case). The account must
         *     support direct messages (`bluesky`, `instagram`, `facebook`; `story_reply` on `instagram` and `facebook` only),
         *     else `400 PLATFORM_NOT_SUPPORTED`; an unknown `accountId` answers `404 NOT_FOUND`.
         */
        post: operations["createAutomation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/automations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        /**
         * Get an automation
         * @description One automation rule with its trigger, keywords, message and counters.
         */
        get: operations["getAutomation"];
        put?: never;
        post?: never;
        /**
         * Delete an automation
         * @description Deletes the rule; comments, story replies and messages that arrive afterwards no longer set it off. An unknown id answers `404 NOT_FOUND`.
         */
        delete: operations["deleteAutomation"];
        options?: never;
        head?: never;
        /**
         * Update an automation
         * @description Changes only the sent fields; `{}` changes nothing (not even `updatedAt`) and answers the automation as it is, as the webhook PATCH does. `enabled` false pauses the rule, true resumes it. `keywords` and `excludeKeywords` replace the lists; an empty `excludeKeywords` removes them.
         */
        patch: operations["updateAutomation"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description Nested error envelope, used by every error except `429 RATE_LIMITED`.
         * @example {
         *       "error": {
         *         "code": "VALIDATION_ERROR",
         *         "message": "limit must be <= 100",
         *         "param": "limit"
         *       }
         *     }
         */
        ErrorResponse: {
            error: {
                /**
                 * @description Machine-readable error code. New codes can be added.
                 * @example VALIDATION_ERROR
                 */
                code: string;
                /**
                 * @description Human-readable explanation.
                 * @example limit must be <= 100
                 */
                message: string;
                /**
                 * @description The field the error is about (a body field path such as `destinations[0].text`, a query or path parameter, or a header).
                 * @example limit
                 */
                param?: string;
                /** @description Free-form details of the error. */
                details?: {
                    [key: string]: unknown;
                };
            };
        };
        /**
         * @description Flat error envelope used only by `429 RATE_LIMITED` (the workspace request budget).
         * @example {
         *       "error": "Rate limit exceeded. Retry in 12 seconds.",
         *       "code": "RATE_LIMITED",
         *       "details": {
         *         "currentCount": 600,
         *         "limit": 600,
         *         "retryAfterSeconds": 12
         *       }
         *     }
         */
        RateLimitError: {
            /**
             * @description Human-readable message.
             * @example Rate limit exceeded. Retry in 12 seconds.
             */
            error: string;
            /** @enum {string} */
            code: "RATE_LIMITED";
            details: {
                /**
                 * @description Requests counted in the current window.
                 * @example 600
                 */
                currentCount: number;
                /**
                 * @description Budget of the window.
                 * @example 600
                 */
                limit: number;
                /**
                 * @description Same value as the `Retry-After` header.
                 * @example 12
                 */
                retryAfterSeconds: number;
            };
        };
        /**
         * @description Lowercase network identifier. Open enumeration: new networks can be added, so clients must
         *     tolerate values they do not know. Known: `twitter` (microblogging), `bluesky` (decentralized),
         *     `instagram` (photo-sharing), `facebook` (page-based), `threads` (text-thread), `pinterest`
         *     (pin-board), `tiktok` (short-video), `linkedin` (professional), `reddit` (forum), `youtube` (video).
         * @example instagram
         */
        Platform: string;
        /**
         * @description Open enumeration. `active` works normally; `expired`, `revoked` and `error` need a reconnect
         *     before the account can publish again (`expired` also covers an authorization that ran out and
         *     cannot renew by itself). New values can be added.
         * @example active
         */
        AccountStatus: string;
        /**
         * @description `action_required` when the owner must reconnect (the account is not `active`).
         * @example healthy
         * @enum {string}
         */
        AuthHealth: "healthy" | "action_required";
        /**
         * @description Status of a post or of one destination. `queued` → `processing` → `published` | `failed`;
         *     `scheduled` → (at fire time) `processing` → …; `scheduled` → `cancelled`; `published` → `deleted`.
         *     A post with some destinations published and some failed is `published`.
         * @example published
         * @enum {string}
         */
        PostStatus: "queued" | "processing" | "published" | "failed" | "scheduled" | "cancelled" | "deleted";
        /**
         * @description Kind of media of a post.
         * @example image
         * @enum {string}
         */
        MediaKind: "text" | "image" | "multi-image" | "video" | "stories";
        /**
         * @description Open enumeration. `comment_to_dm` answers a comment with a direct message, `story_reply` answers a
         *     story reply, `welcome_dm` answers a message. New values can be added.
         * @example comment_to_dm
         */
        AutomationKind: string;
        /**
         * @description Name of a webhook event.
         * @example post.published
         * @enum {string}
         */
        WebhookEventName: "post.scheduled" | "post.published" | "post.failed" | "post.partial" | "post.cancelled" | "post.deleted" | "post.platform.published" | "post.platform.failed" | "post.external.created" | "account.connected" | "account.disconnected" | "account.expired" | "account.reconnected" | "comment.received" | "comment.replied" | "message.received" | "message.sent" | "conversation.started" | "review.new" | "automation.triggered" | "automation.failed" | "webhook.test";
        /**
         * @description A connected account in the list and connect shape.
         * @example {
         *       "id": "5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b",
         *       "platform": "bluesky",
         *       "displayName": "Studio North",
         *       "handle": "studio-north.bsky.social",
         *       "avatarUrl": "https://cdn.bsky.app/img/avatar/plain/did:plc:4kq2xv7bm3l5n6p8r9s0t1u2/bafkreih3x4@jpeg",
         *       "status": "active",
         *       "authHealth": "healthy",
         *       "tokenExpiresAt": null,
         *       "canAutoRenew": true,
         *       "profileName": "Studio North",
         *       "createdAt": "2025-03-14T09:30:00Z",
         *       "updatedAt": "2025-03-14T09:30:00Z"
         *     }
         */
        Connection: {
            /** Format: uuid */
            id: string;
            platform: components["schemas"]["Platform"];
            displayName?: string;
            /** @description Handle without a leading @. */
            handle?: string;
            /** Format: uri */
            avatarUrl?: string | null;
            status: components["schemas"]["AccountStatus"];
            authHealth: components["schemas"]["AuthHealth"];
            /**
             * Format: date-time
             * @description Present on the connect response.
             */
            tokenExpiresAt?: string | null;
            /** @description Present on the connect response. */
            canAutoRenew?: boolean;
            /** @description Present on the connect response. */
            profileName?: string;
            /** @description Subscription of a `twitter` account, for example a premium tier. */
            microblogSubscriptionType?: string | null;
            /** Format: date-time */
            createdAt?: string;
            /** Format: date-time */
            updatedAt?: string;
        };
        ConnectionEnvelope: {
            connection: components["schemas"]["Connection"];
        };
        ConnectionList: {
            connections: components["schemas"]["Connection"][];
        };
        /**
         * @description Where the account owner signs in. A sign-in that finishes after `expiresAt` returns to the redirect URL with `error=SESSION_EXPIRED`.
         * @example {
         *       "type": "oauth",
         *       "url": "http://127.0.0.1:4010/__oauth/authorize?session=os_ws_default_7c1e4b9d2a6f4e1b8c0d",
         *       "expiresAt": "2025-03-14T09:45:00Z"
         *     }
         */
        OAuthRedirect: {
            /** @enum {string} */
            type: "oauth";
            /** Format: uri */
            url: string;
            /** Format: date-time */
            expiresAt: string;
        };
        /**
         * @description A connected account in the single-account shape. A disconnected account is no longer returned.
         * @example {
         *       "id": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *       "platform": "instagram",
         *       "displayName": "Northwind Coffee",
         *       "handle": "northwindcoffee",
         *       "avatarUrl": "https://scontent.cdninstagram.com/v/t51.2885-19/northwindcoffee_avatar.jpg",
         *       "status": "active",
         *       "canAutoRenew": true,
         *       "tokenExpiresAt": "2025-05-13T09:30:00Z",
         *       "profile": "Studio North",
         *       "metadata": {
         *         "tenantId": "tenant_4821"
         *       },
         *       "authHealth": "healthy",
         *       "createdAt": "2025-03-14T09:30:00Z",
         *       "updatedAt": "2025-03-14T09:30:00Z"
         *     }
         */
        Account: {
            id: string;
            platform: components["schemas"]["Platform"];
            displayName: string;
            /** @description Handle without a leading @. A `linkedin` account has no handle, so its name is here. */
            handle: string;
            /** Format: uri */
            avatarUrl: string | null;
            status: components["schemas"]["AccountStatus"];
            /** @description True when authorization renews without the owner signing in again. */
            canAutoRenew: boolean;
            /**
             * Format: date-time
             * @description Null when the authorization does not expire.
             */
            tokenExpiresAt: string | null;
            /** @description Name of the profile the account is filed under; null when in no profile. */
            profile: string | null;
            /** @description The metadata sent with the connect; empty object when none was sent. */
            metadata: {
                [key: string]: unknown;
            };
            /** @description Only for `twitter`: sets its post length limit (280, or 25000 with a premium tier); null when not reported; left out for other networks. */
            microblogSubscriptionType?: string | null;
            authHealth?: components["schemas"]["AuthHealth"];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /**
         * @description The reconnected account (every Account field) with `type: account`; the `bluesky` reconnect answer.
         * @example {
         *       "type": "account",
         *       "id": "b8a7c6d5-e4f3-4a2b-9c1d-0e9f8a7b6c5d",
         *       "platform": "bluesky",
         *       "displayName": "Maya Okafor",
         *       "handle": "mayaokafor.bsky.social",
         *       "avatarUrl": null,
         *       "status": "active",
         *       "canAutoRenew": true,
         *       "tokenExpiresAt": null,
         *       "profile": null,
         *       "metadata": {},
         *       "authHealth": "healthy",
         *       "createdAt": "2025-03-14T09:30:00Z",
         *       "updatedAt": "2025-03-20T11:02:00Z"
         *     }
         */
        AccountReconnected: {
            /** @enum {string} */
            type: "account";
            id: string;
            platform: components["schemas"]["Platform"];
            displayName: string;
            handle: string;
            /** Format: uri */
            avatarUrl: string | null;
            status: components["schemas"]["AccountStatus"];
            canAutoRenew: boolean;
            /** Format: date-time */
            tokenExpiresAt: string | null;
            profile: string | null;
            metadata: {
                [key: string]: unknown;
            };
            microblogSubscriptionType?: string | null;
            authHealth?: components["schemas"]["AuthHealth"];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        AccountPage: {
            data: components["schemas"]["Account"][];
            /** @description Null on the last page. */
            nextCursor: string | null;
            hasMore: boolean;
            /** @description Count across all pages; only with `include=total`. */
            total?: number;
        };
        /**
         * @description Account insights of one day; null where the network does not report the value.
         * @example {
         *       "day": "2025-03-13",
         *       "followers": 18423,
         *       "impressions": 9210,
         *       "reach": 6120,
         *       "profileViews": 314,
         *       "engagement": 587
         *     }
         */
        AccountInsightPoint: {
            /** Format: date */
            day: string;
            followers: number | null;
            impressions: number | null;
            reach: number | null;
            profileViews: number | null;
            engagement: number | null;
        };
        AccountAnalyticsPage: {
            accountId: string;
            platform: components["schemas"]["Platform"];
            data: components["schemas"]["AccountInsightPoint"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        /**
         * @example {
         *       "accountId": "8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a",
         *       "platform": "tiktok",
         *       "status": "active",
         *       "stats": {
         *         "followerCount": 48210,
         *         "followingCount": 312,
         *         "likesCount": 1204833,
         *         "videoCount": 187
         *       },
         *       "fetchedAt": "2025-03-14T09:30:00Z"
         *     }
         */
        ConnectionStats: {
            /** @description The connection id (the mock uses `accountId` of the two published names). */
            accountId: string;
            platform: components["schemas"]["Platform"];
            status: components["schemas"]["AccountStatus"];
            /** @description Network-specific counters, null when the network reports none. `tiktok`: followerCount, followingCount, likesCount, videoCount. */
            stats: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            fetchedAt: string;
            messengerProfile?: components["schemas"]["MessengerProfile"];
            /** @description Newest first; only with `include=reviews` on `facebook`. */
            reviews?: components["schemas"]["Review"][];
        };
        /**
         * @description Messenger profile of a `facebook` page; only with `include=messenger-profile`.
         * @example {
         *       "greeting": "Hi {{user_first_name}}! Ask us anything about our beans.",
         *       "iceBreakers": [
         *         "What are your opening hours?",
         *         "Do you ship abroad?"
         *       ],
         *       "persistentMenu": [
         *         {
         *           "title": "Shop",
         *           "type": "web_url",
         *           "url": "https://northwind-coffee.example.com/shop"
         *         },
         *         {
         *           "title": "Talk to a person",
         *           "type": "postback",
         *           "payload": "HUMAN_AGENT"
         *         }
         *       ]
         *     }
         */
        MessengerProfile: {
            greeting: string | null;
            iceBreakers: string[];
            persistentMenu: {
                title: string;
                /** @description Menu item kind, for example `postback` or `web_url`. */
                type: string;
                payload?: string;
                /** Format: uri */
                url?: string;
            }[];
        };
        /**
         * @example {
         *       "id": "17984213377519823",
         *       "mediaType": "IMAGE",
         *       "mediaUrl": "https://scontent.cdninstagram.com/v/t51.29350-15/431_n.jpg",
         *       "thumbnailUrl": null,
         *       "caption": "Spring blend is back ☕",
         *       "permalink": "https://www.instagram.com/p/C4xYz9aLm2Q/",
         *       "timestamp": "2025-03-12T16:04:11Z"
         *     }
         */
        ConnectionMediaItem: {
            /** @description The network's media id. */
            id: string;
            /** @enum {string} */
            mediaType: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM" | "TEXT";
            /** Format: uri */
            mediaUrl: string | null;
            /** Format: uri */
            thumbnailUrl: string | null;
            caption: string | null;
            /** Format: uri */
            permalink: string | null;
            /** Format: date-time */
            timestamp: string;
        };
        ConnectionMediaPage: {
            connectionId: string;
            platform: components["schemas"]["Platform"];
            items: components["schemas"]["ConnectionMediaItem"][];
            /** @description Null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @description What a `tiktok` creator may post with.
         * @example {
         *       "creatorAvatarUrl": "https://p16-sign.tiktokcdn.com/tos-maliva-avt-0068/northwind.jpeg",
         *       "creatorUsername": "northwindcoffee",
         *       "creatorNickname": "Northwind Coffee",
         *       "privacyLevelOptions": [
         *         "PUBLIC_TO_EVERYONE",
         *         "MUTUAL_FOLLOW_FRIENDS",
         *         "SELF_ONLY"
         *       ],
         *       "commentDisabled": false,
         *       "duetDisabled": false,
         *       "stitchDisabled": true,
         *       "maxVideoPostDurationSec": 600
         *     }
         */
        CreatorInfo: {
            creatorAvatarUrl: string | null;
            creatorUsername: string | null;
            creatorNickname: string | null;
            /** @description Allowed `privacyLevel` values of a destination. */
            privacyLevelOptions: string[];
            commentDisabled: boolean;
            duetDisabled: boolean;
            stitchDisabled: boolean;
            maxVideoPostDurationSec: number | null;
        };
        CreatorInfoResponse: {
            connectionId: string;
            /** @enum {string} */
            platform: "tiktok";
            creatorInfo: components["schemas"]["CreatorInfo"];
            /** Format: date-time */
            fetchedAt: string;
        };
        /**
         * @example {
         *       "boards": [
         *         {
         *           "id": "1023847561928374650",
         *           "name": "Coffee recipes"
         *         },
         *         {
         *           "id": "1023847561928374711",
         *           "name": "Café interiors"
         *         }
         *       ],
         *       "defaultBoardId": "1023847561928374650",
         *       "sandbox": false,
         *       "connectionId": "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e",
         *       "platform": "pinterest",
         *       "fetchedAt": "2025-03-14T09:30:00Z"
         *     }
         */
        PinBoards: {
            boards: {
                id: string;
                name: string;
            }[];
            defaultBoardId: string | null;
            /** @description True when the connection uses the network's sandbox. */
            sandbox: boolean;
            connectionId: string;
            platform: components["schemas"]["Platform"];
            /** Format: date-time */
            fetchedAt: string;
        };
        /**
         * @example {
         *       "accountId": "5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b",
         *       "platform": "bluesky",
         *       "defaultLangs": [
         *         "en",
         *         "pt-BR"
         *       ],
         *       "updatedAt": "2025-03-14T09:30:00Z"
         *     }
         */
        BlueskySettings: {
            accountId: string;
            /** @enum {string} */
            platform: "bluesky";
            defaultLangs: string[] | null;
            /** Format: date-time */
            updatedAt: string;
        };
        /**
         * @description A page (or page-linked photo-sharing account) that can be connected in a headless connect session.
         * @example {
         *       "id": "104857362918273",
         *       "platform": "facebook",
         *       "name": "Northwind Coffee",
         *       "username": "northwindcoffee",
         *       "pictureUrl": "https://scontent.xx.fbcdn.net/v/t39.30808-1/northwind_p200x200.jpg",
         *       "category": "Coffee shop",
         *       "pageName": "Northwind Coffee"
         *     }
         */
        ConnectCandidate: {
            id: string;
            platform: components["schemas"]["Platform"];
            name: string;
            username: string | null;
            /** Format: uri */
            pictureUrl: string | null;
            category: string | null;
            pageName: string | null;
        };
        ConnectCandidateList: {
            data: components["schemas"]["ConnectCandidate"][];
        };
        /**
         * @description A page-linked `instagram` account that can be connected after a `facebook_login` connect.
         * @example {
         *       "pageId": "104857362918273",
         *       "pageName": "Northwind Coffee",
         *       "instagramAccountId": "17841405822304914",
         *       "username": "northwindcoffee",
         *       "name": "Northwind Coffee",
         *       "profilePictureUrl": "https://scontent.cdninstagram.com/v/t51.2885-19/northwindcoffee_avatar.jpg"
         *     }
         */
        PendingInstagramAccount: {
            pageId: string;
            pageName: string;
            instagramAccountId: string;
            username: string;
            name: string | null;
            /** Format: uri */
            profilePictureUrl: string | null;
        };
        PendingInstagramAccountList: {
            accounts: components["schemas"]["PendingInstagramAccount"][];
        };
        /**
         * @description A group of connections.
         * @example {
         *       "id": "e7f8a9b0-c1d2-4e3f-9a4b-5c6d7e8f9a0b",
         *       "name": "Studio North",
         *       "isDefault": false,
         *       "connectionCount": 3,
         *       "createdAt": "2025-03-14T09:30:00Z"
         *     }
         */
        Profile: {
            id: string;
            name: string;
            /** @description True for the workspace default profile. */
            isDefault: boolean;
            connectionCount: number;
            /** Format: date-time */
            createdAt: string;
        };
        ProfilePage: {
            data: components["schemas"]["Profile"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        /**
         * @description An uploaded media file.
         * @example {
         *       "id": "c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f",
         *       "url": "http://127.0.0.1:4010/__media/5b1e0c9a4f7d2e83a6c0b9d14e2f7a38.jpg",
         *       "contentType": "image/jpeg",
         *       "sizeBytes": 482113
         *     }
         */
        MediaAsset: {
            id: string;
            /** Format: uri */
            url: string;
            contentType: string;
            sizeBytes?: number;
        };
        MediaPage: {
            data: components["schemas"]["MediaAsset"][];
            nextCursor: string | null;
            hasMore: boolean;
            /** @description Only with `include=total`. */
            total?: number;
        };
        /**
         * @example {
         *       "uploadUrl": "http://127.0.0.1:4010/__uploads/5b1e0c9a4f7d2e83a6c0b9d14e2f7a38.jpg?token=9c2d4e6f8a0b1c3d5e7f9a1b3c5d7e9f",
         *       "publicUrl": "http://127.0.0.1:4010/__media/5b1e0c9a4f7d2e83a6c0b9d14e2f7a38.jpg",
         *       "key": "5b1e0c9a4f7d2e83a6c0b9d14e2f7a38.jpg",
         *       "expiresIn": 900
         *     }
         */
        PresignedUpload: {
            /**
             * Format: uri
             * @description `PUT` the file here with the declared Content-Type.
             */
            uploadUrl: string;
            /**
             * Format: uri
             * @description Use in `mediaUrls` of a post.
             */
            publicUrl: string;
            key: string;
            /** @description Seconds until `uploadUrl` expires. */
            expiresIn: number;
        };
        /**
         * @description A post in the grouped shape (one post, one or more destinations).
         * @example {
         *       "id": "0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b",
         *       "text": "Spring blend is back. Bright, floral, roasted this morning.",
         *       "mediaUrls": [
         *         "http://127.0.0.1:4010/__media/ws_default/2025/03/spring-blend.jpg"
         *       ],
         *       "mediaKind": "image",
         *       "status": "published",
         *       "scheduledFor": null,
         *       "timezone": null,
         *       "source": "api",
         *       "destinations": [
         *         {
         *           "id": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
         *           "connectionId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *           "platform": "instagram",
         *           "status": "published",
         *           "externalPostId": "17984213377519823",
         *           "externalUrl": "https://www.instagram.com/p/C4xYz9aLm2Q/",
         *           "errorCode": null,
         *           "errorMessage": null,
         *           "publishedAt": "2025-03-14T09:30:07Z",
         *           "metrics": {
         *             "impressions": 5120,
         *             "reach": 4310,
         *             "likes": 402,
         *             "comments": 37,
         *             "shares": 12,
         *             "saves": 58,
         *             "plays": null,
         *             "engagement": 509
         *           }
         *         },
         *         {
         *           "id": "d4c3b2a1-f6e5-4b7a-9c8d-5d4c3b2a1f0e",
         *           "connectionId": "5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b",
         *           "platform": "bluesky",
         *           "status": "published",
         *           "externalPostId": "at://did:plc:4kq2xv7bm3l5n6p8r9s0t1u2/app.bsky.feed.post/3kmz7q2v4rs2a",
         *           "externalUrl": "https://bsky.app/profile/studio-north.bsky.social/post/3kmz7q2v4rs2a",
         *           "errorCode": null,
         *           "errorMessage": null,
         *           "publishedAt": "2025-03-14T09:30:11Z"
         *         }
         *       ],
         *       "createdAt": "2025-03-14T09:30:00Z",
         *       "updatedAt": "2025-03-14T09:30:11Z"
         *     }
         */
        Post: {
            /** Format: uuid */
            id: string;
            text: string;
            mediaUrls: string[];
            mediaKind: components["schemas"]["MediaKind"];
            status: components["schemas"]["PostStatus"];
            /** @description Timezone-naive local date-time in `timezone`, shape YYYY-MM-DDTHH:MM:SS. */
            scheduledFor: string | null;
            /** @description IANA timezone name for `scheduledFor`. */
            timezone: string | null;
            destinations: components["schemas"]["PostDestination"][];
            /**
             * @description `api` for posts created through the API, `external` for posts imported by sync.
             * @enum {string}
             */
            source?: "api" | "external";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        /**
         * @description One destination (one connected account) of a post.
         * @example {
         *       "id": "e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b",
         *       "connectionId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *       "platform": "instagram",
         *       "status": "failed",
         *       "externalPostId": null,
         *       "externalUrl": null,
         *       "errorCode": "VELOCITY_LIMITED",
         *       "errorMessage": "Account reached 25 posts in the last hour.",
         *       "publishedAt": null,
         *       "metrics": null
         *     }
         */
        PostDestination: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            connectionId: string;
            platform: components["schemas"]["Platform"];
            status: components["schemas"]["PostStatus"];
            /** @description The network's post id once published. */
            externalPostId: string | null;
            /** Format: uri */
            externalUrl: string | null;
            /** @description Set when the destination failed, for example `VELOCITY_LIMITED` or `PLATFORM_ERROR`. */
            errorCode: string | null;
            errorMessage: string | null;
            /** Format: date-time */
            publishedAt: string | null;
            metrics?: components["schemas"]["NullableNormalizedMetrics"];
        };
        PostEnvelope: {
            post: components["schemas"]["Post"];
        };
        PostPage: {
            data: components["schemas"]["Post"][];
            nextCursor: string | null;
            hasMore: boolean;
            /** @description Only with `include=total`. */
            total?: number;
            /**
             * @description Counts across all pages; only with `include=facets`.
             * @example {
             *       "status": {
             *         "published": 42,
             *         "scheduled": 5,
             *         "failed": 1
             *       },
             *       "platform": {
             *         "instagram": 30,
             *         "bluesky": 18
             *       }
             *     }
             */
            facets?: {
                /** @description Post count per post status. */
                status: {
                    [key: string]: number;
                };
                /** @description Post count per destination network. */
                platform: {
                    [key: string]: number;
                };
            };
        };
        /**
         * @description A post in the single-account shape, returned by account sync.
         * @example {
         *       "id": "6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a",
         *       "groupId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
         *       "accountId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *       "platform": "instagram",
         *       "source": "external",
         *       "status": "published",
         *       "text": "Latte art Friday. Who wants the recipe?",
         *       "mediaKind": "image",
         *       "media": [
         *         {
         *           "url": "https://scontent.cdninstagram.com/v/t51.29350-15/latte_n.jpg",
         *           "type": "image"
         *         }
         *       ],
         *       "thread": [],
         *       "scheduledFor": null,
         *       "timezone": null,
         *       "options": {},
         *       "platformPostId": "17984213377519901",
         *       "url": "https://www.instagram.com/p/C4zQw1bNn7R/",
         *       "error": null,
         *       "publishedAt": "2025-03-13T15:02:44Z",
         *       "metrics": {
         *         "impressions": 2210,
         *         "reach": 1980,
         *         "likes": 187,
         *         "comments": 14,
         *         "shares": 3,
         *         "saves": 22,
         *         "plays": null,
         *         "engagement": 226
         *       },
         *       "createdAt": "2025-03-14T09:31:00Z",
         *       "updatedAt": "2025-03-14T09:31:00Z"
         *     }
         */
        AccountPost: {
            id: string;
            /** @description Id of the grouped post this belongs to. */
            groupId: string | null;
            accountId: string;
            platform: components["schemas"]["Platform"];
            /**
             * @description `external` for a post imported from outside the service.
             * @enum {string}
             */
            source: "api" | "external";
            status: components["schemas"]["PostStatus"];
            text: string | null;
            mediaKind: components["schemas"]["MediaKind"];
            media: {
                /** Format: uri */
                url: string;
                /** @enum {string} */
                type: "image" | "video";
            }[];
            thread: string[];
            scheduledFor: string | null;
            timezone: string | null;
            /** @description Network-specific options of the post (free-form). */
            options: {
                [key: string]: unknown;
            };
            platformPostId: string;
            /** Format: uri */
            url: string | null;
            error: {
                code: string;
                message: string;
            } | null;
            /** Format: date-time */
            publishedAt: string | null;
            metrics: components["schemas"]["NullableNormalizedMetrics"];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        SyncResult: {
            data: components["schemas"]["AccountPost"][];
            /** @description True when the account was synced in the last 15 seconds; then only posts already known are returned. */
            skipped: boolean;
        };
        /**
         * @description Engagement metrics normalized across networks; null where the network does not report the value.
         * @example {
         *       "impressions": 5120,
         *       "reach": 4310,
         *       "likes": 402,
         *       "comments": 37,
         *       "shares": 12,
         *       "saves": 58,
         *       "plays": null,
         *       "engagement": 509
         *     }
         */
        NormalizedMetrics: {
            impressions: number | null;
            reach: number | null;
            likes: number | null;
            comments: number | null;
            shares: number | null;
            saves: number | null;
            plays: number | null;
            engagement: number | null;
        };
        /**
         * @description NormalizedMetrics, or null before the first reading (a post's destination, an account's post).
         *     OpenAPI 3.0 cannot make a `$ref` nullable (`nullable` only widens a `type` beside it, and an `allOf`
         *     of NormalizedMetrics would still refuse null), so the same properties are written out here;
         *     test/contract/codegen.test.ts fails if the two drift apart.
         * @example {
         *       "impressions": 880,
         *       "reach": 790,
         *       "likes": 61,
         *       "comments": 4,
         *       "shares": 2,
         *       "saves": 9,
         *       "plays": null,
         *       "engagement": 76
         *     }
         */
        NullableNormalizedMetrics: {
            impressions: number | null;
            reach: number | null;
            likes: number | null;
            comments: number | null;
            shares: number | null;
            saves: number | null;
            plays: number | null;
            engagement: number | null;
        } | null;
        /**
         * @description Metrics of one day's reading.
         * @example {
         *       "impressions": 5120,
         *       "reach": 4310,
         *       "likes": 402,
         *       "comments": 37,
         *       "shares": 12,
         *       "saves": 58,
         *       "views": 0,
         *       "engagement": 509
         *     }
         */
        TimelineMetrics: {
            impressions: number;
            reach: number;
            likes: number;
            comments: number;
            shares: number;
            saves: number;
            views: number;
            engagement: number;
        };
        /**
         * @description Change since the previous point; the first point has null for every key.
         * @example {
         *       "impressions": 830,
         *       "reach": 610,
         *       "likes": 41,
         *       "comments": 3,
         *       "shares": 1,
         *       "saves": 6,
         *       "views": 0,
         *       "engagement": 51
         *     }
         */
        TimelineDelta: {
            impressions: number | null;
            reach: number | null;
            likes: number | null;
            comments: number | null;
            shares: number | null;
            saves: number | null;
            views: number | null;
            engagement: number | null;
        };
        /**
         * @description One UTC day with a reading.
         * @example {
         *       "day": "2025-03-15",
         *       "metrics": {
         *         "impressions": 5120,
         *         "reach": 4310,
         *         "likes": 402,
         *         "comments": 37,
         *         "shares": 12,
         *         "saves": 58,
         *         "views": 0,
         *         "engagement": 509
         *       },
         *       "delta": {
         *         "impressions": 830,
         *         "reach": 610,
         *         "likes": 41,
         *         "comments": 3,
         *         "shares": 1,
         *         "saves": 6,
         *         "views": 0,
         *         "engagement": 51
         *       }
         *     }
         */
        TimelinePoint: {
            /**
             * Format: date
             * @description UTC day.
             */
            day: string;
            metrics: components["schemas"]["TimelineMetrics"];
            delta: components["schemas"]["TimelineDelta"];
        };
        PostAnalyticsTimeline: {
            postId: string;
            /**
             * Format: date
             * @description First UTC day covered (the day of `since`).
             */
            from: string;
            /**
             * Format: date
             * @description Last UTC day covered (the day in which the range ends).
             */
            to: string;
            points: components["schemas"]["TimelinePoint"][];
        };
        /**
         * @description Metrics of one published destination.
         * @example {
         *       "postId": "0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b",
         *       "destinationId": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
         *       "connectionId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *       "platform": "instagram",
         *       "publishedAt": "2025-03-14T09:30:07Z",
         *       "metrics": {
         *         "impressions": 5120,
         *         "reach": 4310,
         *         "likes": 402,
         *         "comments": 37,
         *         "shares": 12,
         *         "saves": 58,
         *         "plays": null,
         *         "engagement": 509
         *       }
         *     }
         */
        PostAnalytics: {
            postId: string;
            destinationId: string;
            connectionId: string;
            platform: components["schemas"]["Platform"];
            /** Format: date-time */
            publishedAt: string;
            metrics: components["schemas"]["NormalizedMetrics"];
        };
        PostAnalyticsPage: {
            data: components["schemas"]["PostAnalytics"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        AnalyticsTimelinePage: {
            /** Format: date */
            from: string;
            /** Format: date */
            to: string;
            data: components["schemas"]["TimelinePoint"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        /**
         * @description Comment shape A, answered by create-comment. It is the network's own view, so `id` and `parentId` are network comment ids.
         * @example {
         *       "id": "18034567219876543",
         *       "text": "Thanks! The recipe is in our bio.",
         *       "username": "northwindcoffee",
         *       "likeCount": 0,
         *       "timestamp": "2025-03-14T10:12:30Z",
         *       "parentId": "18034567219870001",
         *       "replies": []
         *     }
         */
        CreatedComment: {
            /** @description The network's comment id. */
            id: string;
            text: string;
            username?: string | null;
            likeCount?: number | null;
            timestamp?: string | null;
            parentId?: string | null;
            replies?: components["schemas"]["CreatedComment"][];
        };
        CreatedCommentEnvelope: {
            comment: components["schemas"]["CreatedComment"];
        };
        /**
         * @description Comment shape B, answered by reply-to-comment and listed by the comment list.
         * @example {
         *       "id": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
         *       "postId": "0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b",
         *       "accountId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *       "platform": "instagram",
         *       "platformCommentId": "18034567219870001",
         *       "parentId": null,
         *       "text": "Is this the Ethiopian one? 😍",
         *       "username": "maya.brews",
         *       "likeCount": 3,
         *       "createdAt": "2025-03-14T10:05:12Z",
         *       "replies": []
         *     }
         */
        Comment: {
            /** @description The service's comment id; works only in the workspace that received it. */
            id: string;
            postId: string;
            accountId: string;
            platform: components["schemas"]["Platform"];
            /** @description The network's own comment id. */
            platformCommentId: string;
            /** @description Null for a comment on the post. */
            parentId: string | null;
            text: string;
            /** @description Without a leading @; null when not shared. */
            username: string | null;
            likeCount: number | null;
            /** Format: date-time */
            createdAt: string | null;
            /** @description Only on networks that return replies with the comment; empty otherwise. */
            replies: components["schemas"]["Comment"][];
        };
        CommentPage: {
            data: components["schemas"]["Comment"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        /**
         * @example {
         *       "liked": {
         *         "postId": "0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b",
         *         "destinationId": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
         *         "platform": "facebook",
         *         "commentId": "122101234567890123_987654321098765",
         *         "liked": true
         *       }
         *     }
         */
        CommentLikeResult: {
            liked: {
                postId: string;
                destinationId: string;
                platform: components["schemas"]["Platform"];
                commentId: string;
                liked: boolean;
            };
        };
        /**
         * @example {
         *       "postId": "4b5c6d7e-8f9a-4b0c-9d1e-2f3a4b5c6d7e",
         *       "destinationId": "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f",
         *       "platform": "twitter",
         *       "kind": "like",
         *       "active": true
         *     }
         */
        EngagementResult: {
            postId: string;
            destinationId: string;
            platform: components["schemas"]["Platform"];
            /** @enum {string} */
            kind: "like" | "repost" | "bookmark" | "quote";
            /** @description True after a like, repost, bookmark or quote; false after its undo. */
            active: boolean;
        };
        /**
         * @description The engagement result of a quote (`kind` `quote`, `active` true) with the new quote post.
         * @example {
         *       "postId": "4b5c6d7e-8f9a-4b0c-9d1e-2f3a4b5c6d7e",
         *       "destinationId": "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f",
         *       "platform": "twitter",
         *       "kind": "quote",
         *       "active": true,
         *       "quotePostId": "8e9f0a1b-2c3d-4e4f-9a5b-6c7d8e9f0a1b",
         *       "externalPostId": "1900512345678901234",
         *       "externalUrl": "https://x.com/northwindcoffee/status/1900512345678901234"
         *     }
         */
        QuoteResult: {
            /** @description The quoted post. */
            postId: string;
            /** @description The quoted destination. */
            destinationId: string;
            platform: components["schemas"]["Platform"];
            /** @enum {string} */
            kind: "quote";
            active: boolean;
            /** @description The service's id of the new quote post. */
            quotePostId: string;
            /** @description The network's id of the new quote post. */
            externalPostId: string | null;
            /** Format: uri */
            externalUrl: string | null;
        };
        /**
         * @example {
         *       "id": "6218435790123456",
         *       "username": "maya.brews",
         *       "displayName": "Maya Okafor"
         *     }
         */
        ConversationMember: {
            /** @description The network's id of the person. */
            id: string;
            username: string | null;
            displayName: string | null;
        };
        /**
         * @description A direct-message conversation (inbox list item).
         * @example {
         *       "id": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
         *       "members": [
         *         {
         *           "id": "6218435790123456",
         *           "username": "maya.brews",
         *           "displayName": "Maya Okafor"
         *         }
         *       ],
         *       "muted": false,
         *       "unreadCount": 2,
         *       "lastMessage": {
         *         "id": "aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx",
         *         "text": "Do you ship to Lisbon?",
         *         "sentAt": "2025-03-14T08:58:20Z"
         *       },
         *       "createdAt": "2025-03-10T17:22:05Z"
         *     }
         */
        Conversation: {
            /** @description Works only in the workspace that received it. */
            id: string;
            members: components["schemas"]["ConversationMember"][];
            muted: boolean;
            unreadCount: number;
            /** @description Null when the conversation has no message yet. */
            lastMessage: {
                id: string;
                /** @description Null for an attachment-only message. */
                text: string | null;
                /** Format: date-time */
                sentAt: string | null;
            } | null;
            /** Format: date-time */
            createdAt: string;
        };
        ConversationList: {
            accountId: string;
            convos: components["schemas"]["Conversation"][];
            /** @description Send as `cursor` for the next page; null on the last page. */
            cursor: string | null;
        };
        ConversationEnvelope: {
            conversation: components["schemas"]["Conversation"];
        };
        /**
         * @example {
         *       "type": "image",
         *       "url": "https://northwind-coffee.example.com/menu/spring-2025.jpg"
         *     }
         */
        MessageAttachment: {
            /** @enum {string} */
            type: "image" | "video" | "audio" | "file";
            /** Format: uri */
            url: string;
        };
        /**
         * @description A direct message.
         * @example {
         *       "id": "aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQy",
         *       "conversationId": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
         *       "text": "Yes! Shipping to Portugal takes 3 to 5 days.",
         *       "senderId": "17841405822304914",
         *       "sentAt": "2025-03-14T09:02:41Z",
         *       "attachments": []
         *     }
         */
        Message: {
            /** @description The network's message id. */
            id: string;
            conversationId: string;
            /** @description Null for an attachment-only message. */
            text: string | null;
            senderId: string;
            /** Format: date-time */
            sentAt: string | null;
            /** @description `instagram` and `facebook` only; empty elsewhere. */
            attachments: components["schemas"]["MessageAttachment"][];
        };
        /**
         * @example {
         *       "title": "Opening hours",
         *       "payload": "HOURS"
         *     }
         */
        QuickReply: {
            title: string;
            payload: string;
        };
        /**
         * @description `postback` buttons carry `payload`; `web_url` buttons carry `url`.
         * @example {
         *       "type": "web_url",
         *       "title": "Shop now",
         *       "url": "https://northwind-coffee.example.com/shop"
         *     }
         */
        MessageButton: {
            /** @enum {string} */
            type: "postback" | "web_url";
            title: string;
            payload?: string;
            /** Format: uri */
            url?: string;
        };
        /**
         * @description One card of a swipeable carousel.
         * @example {
         *       "title": "Spring blend",
         *       "subtitle": "Floral, bright, 250 g",
         *       "imageUrl": "https://northwind-coffee.example.com/img/spring-blend.jpg",
         *       "buttons": [
         *         {
         *           "type": "web_url",
         *           "title": "Buy",
         *           "url": "https://northwind-coffee.example.com/shop/spring-blend"
         *         }
         *       ]
         *     }
         */
        MessageCard: {
            title: string;
            subtitle?: string;
            /** Format: uri */
            imageUrl?: string;
            buttons?: components["schemas"]["MessageButton"][];
        };
        /**
         * @description A page review on `facebook`.
         * @example {
         *       "id": "3141592653589793",
         *       "recommendation": "positive",
         *       "rating": null,
         *       "text": "Best flat white in town, and the staff remember your order.",
         *       "reviewerName": "Jonas Weber",
         *       "createdAt": "2025-03-11T12:40:00Z"
         *     }
         */
        Review: {
            id: string;
            /** @description Open set; values seen are `positive` and `negative`. */
            recommendation: string | null;
            rating: number | null;
            text: string | null;
            reviewerName: string | null;
            /** Format: date-time */
            createdAt: string;
        };
        ReviewPage: {
            data: components["schemas"]["Review"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        /**
         * @example {
         *       "id": "6c5d4e3f-2a1b-4c0d-8e9f-7a6b5c4d3e2f",
         *       "name": "Publish status to CRM",
         *       "url": "https://hooks.example-client.com/gateway",
         *       "enabled": true,
         *       "events": [
         *         "post.published",
         *         "post.failed",
         *         "post.platform.failed"
         *       ],
         *       "createdAt": "2025-03-01T08:00:00Z",
         *       "updatedAt": "2025-03-01T08:00:00Z",
         *       "hasSecret": true,
         *       "consecutiveFailures": 0,
         *       "disabledReason": null
         *     }
         */
        Webhook: {
            id: string;
            name: string;
            /**
             * Format: uri
             * @description The URL as registered, with a password in it masked (`https://user:***@host/hook`).
             */
            url: string;
            enabled: boolean;
            events: components["schemas"]["WebhookEventName"][];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description True when requests are signed (the secret itself is never returned). */
            hasSecret: boolean;
            /** @description Event deliveries in a row that failed every attempt (retries included); a successful attempt resets it; at 10 the webhook is disabled. */
            consecutiveFailures: number;
            /** @description Why the service disabled the webhook, for example `too_many_failures`; null otherwise. */
            disabledReason: string | null;
        };
        WebhookPage: {
            data: components["schemas"]["Webhook"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        /**
         * @example {
         *       "attempt": 1,
         *       "at": "2025-03-14T09:30:12Z",
         *       "responseStatus": 200,
         *       "durationMs": 143,
         *       "error": null
         *     }
         */
        WebhookDeliveryAttempt: {
            /** @description Same value as the `X-Gateway-Delivery-Attempt` header of that request. */
            attempt: number;
            /** Format: date-time */
            at: string;
            /** @description Null when no response arrived. */
            responseStatus: number | null;
            durationMs: number | null;
            /** @description Why the attempt failed (for example `timeout` or `connection refused`); null on success. */
            error: string | null;
        };
        /**
         * @description One event sent to one webhook, with all its attempts.
         * @example {
         *       "id": "f0e1d2c3-b4a5-4968-8776-5a4b3c2d1e0f",
         *       "webhookId": "6c5d4e3f-2a1b-4c0d-8e9f-7a6b5c4d3e2f",
         *       "eventId": "evt_2b3c4d5e6f7a4b8c9d0e1f2a3b4c5d6e",
         *       "event": "post.published",
         *       "status": "succeeded",
         *       "attempts": [
         *         {
         *           "attempt": 1,
         *           "at": "2025-03-14T09:30:12Z",
         *           "responseStatus": 503,
         *           "durationMs": 88,
         *           "error": null
         *         },
         *         {
         *           "attempt": 2,
         *           "at": "2025-03-14T09:31:12Z",
         *           "responseStatus": 200,
         *           "durationMs": 143,
         *           "error": null
         *         }
         *       ],
         *       "nextAttemptAt": null,
         *       "createdAt": "2025-03-14T09:30:12Z",
         *       "lastAttemptAt": "2025-03-14T09:31:12Z"
         *     }
         */
        WebhookDelivery: {
            id: string;
            webhookId: string;
            /** @description The event `id`, the same on every attempt. */
            eventId: string;
            event: components["schemas"]["WebhookEventName"];
            /**
             * @description `pending` while an automatic attempt is due; otherwise the outcome of the last attempt (`failed` after the last retry failed).
             * @enum {string}
             */
            status: "pending" | "succeeded" | "failed";
            attempts: components["schemas"]["WebhookDeliveryAttempt"][];
            /** Format: date-time */
            nextAttemptAt: string | null;
            /**
             * Format: date-time
             * @description The delivery time used by the log's time filters.
             */
            createdAt: string;
            /** Format: date-time */
            lastAttemptAt: string | null;
        };
        WebhookDeliveryPage: {
            data: components["schemas"]["WebhookDelivery"][];
            nextCursor: string | null;
            hasMore: boolean;
            /**
             * @description Counts per status over the filtered range; only with `include=facets`.
             * @example {
             *       "pending": 1,
             *       "succeeded": 240,
             *       "failed": 3
             *     }
             */
            facets?: {
                pending: number;
                succeeded: number;
                failed: number;
            };
            /** @description Counts per time bucket over the filtered range, oldest first; only with `include=histogram`. */
            histogram?: {
                /** Format: date-time */
                start: string;
                /** Format: date-time */
                end: string;
                succeeded: number;
                failed: number;
                pending: number;
            }[];
        };
        /**
         * @description Body of every webhook request. `id` is stable across retries. The shape of `data` depends on
         *     `event`: PostEventData (`post.scheduled`, `post.published`, `post.failed`, `post.partial`,
         *     `post.cancelled`, `post.deleted`, `post.external.created`), PostPlatformEventData
         *     (`post.platform.published`, `post.platform.failed`), AccountEventData (`account.connected`,
         *     `account.expired`, `account.reconnected`), DisconnectedAccount (`account.disconnected`),
         *     CommentEventData (`comment.received`, `comment.replied`), MessageEventData (`message.received`,
         *     `message.sent`), ConversationEventData (`conversation.started`), ReviewEventData (`review.new`),
         *     AutomationEventData (`automation.triggered`, `automation.failed`), WebhookTestEventData
         *     (`webhook.test`).
         * @example {
         *       "id": "evt_2b3c4d5e6f7a4b8c9d0e1f2a3b4c5d6e",
         *       "event": "webhook.test",
         *       "createdAt": "2025-03-14T09:30:00Z",
         *       "workspaceId": "ws_default",
         *       "data": {
         *         "webhookId": "6c5d4e3f-2a1b-4c0d-8e9f-7a6b5c4d3e2f",
         *         "message": "This is a test event from the Social Publishing Gateway."
         *       }
         *     }
         */
        WebhookEvent: {
            /** @description The event id: the same on every attempt and redeliver, and in `X-Gateway-Event-Id`. */
            id: string;
            event: components["schemas"]["WebhookEventName"];
            /** Format: date-time */
            createdAt: string;
            workspaceId: string;
            data: components["schemas"]["PostEventData"] | components["schemas"]["PostPlatformEventData"] | components["schemas"]["AccountEventData"] | components["schemas"]["DisconnectedAccount"] | components["schemas"]["CommentEventData"] | components["schemas"]["MessageEventData"] | components["schemas"]["ConversationEventData"] | components["schemas"]["ReviewEventData"] | components["schemas"]["AutomationEventData"] | components["schemas"]["WebhookTestEventData"];
        };
        /** @description Data of the post-level events; `post` is the post after the change. */
        PostEventData: {
            post: components["schemas"]["Post"];
        };
        /** @description Data of the per-destination events; on `post.platform.failed`, `destination.errorCode` says why (for example `VELOCITY_LIMITED`). */
        PostPlatformEventData: {
            /** Format: uuid */
            postId: string;
            destination: components["schemas"]["PostDestination"];
        };
        /** @description Data of `account.connected`, `account.expired` and `account.reconnected`. */
        AccountEventData: {
            account: components["schemas"]["Account"];
        };
        /**
         * @description Data of `account.disconnected`, the record of an account that is no longer connected.
         * @example {
         *       "id": "f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b",
         *       "platform": "linkedin",
         *       "displayName": "Northwind Coffee Co.",
         *       "handle": "Northwind Coffee Co.",
         *       "profile": "Studio North",
         *       "disconnectedAt": "2025-03-20T16:45:00Z"
         *     }
         */
        DisconnectedAccount: {
            id: string;
            platform: components["schemas"]["Platform"];
            displayName: string;
            handle: string;
            profile: string | null;
            /** Format: date-time */
            disconnectedAt: string;
        };
        /** @description Data of `comment.received` (a new comment from someone) and `comment.replied` (a reply sent by the account). `comment.id` works with reply-to-comment. */
        CommentEventData: {
            /** @description The destination commented on; null for a post not published through the service. */
            destinationId: string | null;
            comment: components["schemas"]["Comment"];
        };
        /** @description Data of `message.received` and `message.sent`. `accountId` and `message.conversationId` work with send-message. */
        MessageEventData: {
            accountId: string;
            platform: components["schemas"]["Platform"];
            message: components["schemas"]["Message"];
        };
        /** @description Data of `conversation.started`. */
        ConversationEventData: {
            accountId: string;
            platform: components["schemas"]["Platform"];
            conversation: components["schemas"]["Conversation"];
        };
        /** @description Data of `review.new`. */
        ReviewEventData: {
            accountId: string;
            platform: components["schemas"]["Platform"];
            review: components["schemas"]["Review"];
        };
        /** @description Data of `automation.triggered` (the direct message was sent) and `automation.failed` (`error` says why). */
        AutomationEventData: {
            automationId: string;
            accountId: string;
            platform: components["schemas"]["Platform"];
            kind: components["schemas"]["AutomationKind"];
            /** @description What set the rule off. */
            trigger: {
                /** @enum {string} */
                type: "comment" | "story_reply" | "message";
                /** @description Comment id or message id. */
                id: string;
                /** @description The network's id of the person answered. */
                senderId: string;
                text: string | null;
            };
            matchedKeyword: string | null;
            /** @description Id of the direct message sent; null when it failed. */
            messageId: string | null;
            error: {
                code: string;
                message: string;
            } | null;
        };
        /** @description Data of `webhook.test`. */
        WebhookTestEventData: {
            webhookId: string;
            message: string;
        };
        /**
         * @description A rule that answers a comment, story reply or message with a direct message.
         * @example {
         *       "id": "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d",
         *       "accountId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
         *       "name": "Recipe requests",
         *       "kind": "comment_to_dm",
         *       "keywords": [
         *         "recipe",
         *         "how to"
         *       ],
         *       "excludeKeywords": [
         *         "spam"
         *       ],
         *       "message": "Here is the recipe you asked for: https://northwind-coffee.example.com/recipes/spring-latte",
         *       "enabled": true,
         *       "createdAt": "2025-03-02T10:00:00Z",
         *       "updatedAt": "2025-03-02T10:00:00Z"
         *     }
         */
        Automation: {
            id: string;
            accountId: string;
            /** @description Label. */
            name: string;
            kind: components["schemas"]["AutomationKind"];
            /** @description The rule runs when a comment or message contains any; matching ignores case. */
            keywords: string[];
            /** @description The rule is skipped when any appears. */
            excludeKeywords: string[];
            /** @description The direct message sent. */
            message: string;
            /** @description False while paused. */
            enabled: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        AutomationPage: {
            data: components["schemas"]["Automation"][];
            nextCursor: string | null;
            hasMore: boolean;
        };
        /**
         * @description Union of the app-password form (`bluesky`: `identifier`, `appPassword`, `reconnectId`), the OAuth
         *     form (`redirectUrl`, `headless`, `loginMethod`) and the completing form (`connectSession` or
         *     `tempToken`, with `candidateId`), plus `profileName` and `metadata`. The mock checks which fields
         *     the named network and form need.
         */
        ConnectAccountBody: {
            /** @description Handle, email or DID (`bluesky`; required there). */
            identifier?: string;
            /** @description App password of the form xxxx-xxxx-xxxx-xxxx (`bluesky`; required there). */
            appPassword?: string;
            /** @description Existing connection to re-authorize (`bluesky`); uses no plan slot. */
            reconnectId?: string;
            /** @description The `connectSession` of a headless connect, with `candidateId` (OAuth networks). */
            connectSession?: string;
            /** @description The `tempToken` of a `facebook_login` connect, with `candidateId` (`instagram`). */
            tempToken?: string;
            /** @description The candidate to connect: its `id` (with `connectSession`) or its `instagramAccountId` (with `tempToken`). */
            candidateId?: string;
            /** @description Profile to file the connection under; created if missing; default the workspace default profile; ignored on reconnect. */
            profileName?: string;
            /**
             * Format: uri
             * @description Where the owner returns after signing in (OAuth networks; required there).
             */
            redirectUrl?: string;
            /** @description Start a headless connect session: the redirect URL receives `connectSession` for the candidates list. */
            headless?: boolean;
            /**
             * @description `instagram` only. `facebook_login` returns `tempToken` to the redirect URL for the pending-accounts list.
             * @enum {string}
             */
            loginMethod?: "instagram_login" | "facebook_login";
            /** @description Free-form data stored on the account and returned as `metadata`. */
            metadata?: {
                [key: string]: unknown;
            };
        };
        /**
         * @example {
         *       "redirectUrl": "https://app.example-client.com/integrations/callback"
         *     }
         */
        ReconnectAccountBody: {
            /**
             * Format: uri
             * @description Required with an API key on OAuth networks; ignored for `bluesky`.
             */
            redirectUrl?: string;
            /** @description `bluesky` only; default the account's handle; must name the same account. */
            identifier?: string;
            /** @description `bluesky` only. */
            appPassword?: string;
        };
        /**
         * @example {
         *       "defaultLangs": [
         *         "en",
         *         "pt-BR"
         *       ]
         *     }
         */
        UpdateBlueskySettingsBody: {
            /** @description Language tags (BCP 47, for example `en` or `pt-BR`); null clears them. */
            defaultLangs: string[] | null;
        };
        /**
         * @example {
         *       "name": "Studio North"
         *     }
         */
        CreateProfileBody: {
            name: string;
        };
        /**
         * @example {
         *       "filename": "spring-blend.jpg",
         *       "contentType": "image/jpeg"
         *     }
         */
        PresignMediaBody: {
            filename: string;
            /** @description MIME type of the file; the upload must use the same Content-Type. */
            contentType: string;
        };
        /**
         * @example {
         *       "url": "https://www.instagram.com/p/C4zQw1bNn7R/"
         *     }
         */
        SyncAccountBody: {
            /**
             * Format: uri
             * @description Link to one post on the network.
             */
            url?: string;
            /** @description The network's id of one post. */
            platformPostId?: string;
        };
        /**
         * @description One destination of a new post; the other fields apply on the networks that know them.
         * @example {
         *       "connectionId": "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f",
         *       "title": "Brewing the spring blend",
         *       "subreddit": "Coffee",
         *       "flairText": "Recipe"
         *     }
         */
        PostDestinationInput: {
            connectionId: string;
            /** @description Replaces the post text on this destination. */
            text?: string;
            /** @description `twitter`: id of the post to quote. */
            quoteMicroblogPostId?: string;
            /**
             * @description `youtube`.
             * @enum {string}
             */
            privacyStatus?: "public" | "private" | "unlisted";
            /**
             * @description `tiktok`; one of the creator info `privacyLevelOptions`.
             * @enum {string}
             */
            privacyLevel?: "PUBLIC_TO_EVERYONE" | "MUTUAL_FOLLOW_FRIENDS" | "FOLLOWER_OF_CREATOR" | "SELF_ONLY";
            /** @description `tiktok`. */
            disableComment?: boolean;
            /** @description `tiktok`. */
            disableDuet?: boolean;
            /** @description `tiktok`. */
            disableStitch?: boolean;
            /** @description `tiktok`. */
            brandOrganicToggle?: boolean;
            /** @description `tiktok`. */
            brandContentToggle?: boolean;
            /** @description `youtube` (video description), `pinterest` (pin description). */
            description?: string;
            /** @description `pinterest` (required there). */
            boardId?: string;
            /**
             * Format: uri
             * @description `pinterest` (destination link), `facebook`, `linkedin` (link preview), `reddit` (link post).
             */
            link?: string;
            /** @description `youtube` and `reddit` (required there), `pinterest`. */
            title?: string;
            /** @description `reddit` (required there). */
            subreddit?: string;
            /** @description `reddit`. */
            flairId?: string;
            /** @description `reddit`. */
            flairText?: string;
            /** @description `reddit`. */
            nsfw?: boolean;
            /** @description `reddit`. */
            spoiler?: boolean;
            /**
             * Format: uri
             * @description `youtube`.
             */
            thumbnailUrl?: string;
        };
        /**
         * @description Identify the destination with `destinationId` alone, or with `post` (service post id, or a network-native post id together with `accountId`).
         * @example {
         *       "destinationId": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
         *       "text": "Thanks! The recipe is in our bio.",
         *       "parentCommentId": "18034567219870001"
         *     }
         */
        CreateCommentBody: {
            /** @description Service post id or network-native post id (native ids also need `accountId`). */
            post?: string;
            accountId?: string;
            /** @description Identifies one destination alone. */
            destinationId?: string;
            text: string;
            /** @description Network-native id of the comment to reply to; omit to comment on the post. */
            parentCommentId?: string;
        };
        /**
         * @example {
         *       "text": "Yes, it is the Yirgacheffe! Glad you like it."
         *     }
         */
        ReplyToCommentBody: {
            text: string;
        };
        /**
         * @example {
         *       "destinationId": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
         *       "commentId": "122101234567890123_987654321098765"
         *     }
         */
        LikeCommentBody: {
            post?: string;
            accountId?: string;
            destinationId?: string;
            /** @description Network-native comment id. */
            commentId: string;
        };
        /**
         * @description Identify the destination with `destinationId` alone, or with `post` (service post id, or a network-native post id together with `accountId`).
         * @example {
         *       "destinationId": "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f"
         *     }
         */
        PostTargetBody: {
            post?: string;
            accountId?: string;
            destinationId?: string;
        };
        /**
         * @example {
         *       "destinationId": "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f"
         *     }
         */
        DestinationTargetBody: {
            destinationId: string;
        };
        /**
         * @example {
         *       "destinationId": "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f",
         *       "text": "Our roaster explains why spring coffees taste brighter."
         *     }
         */
        QuoteBody: {
            destinationId: string;
            text: string;
        };
        /**
         * @example {
         *       "recipientId": "6218435790123456",
         *       "text": "Hi Maya, your order has shipped!"
         *     }
         */
        CreateConversationBody: {
            /** @description The network's id of the person to write to. */
            recipientId: string;
            /** @description Optional first message. */
            text?: string;
        };
        /**
         * @description `attachmentUrl` cannot be combined with `buttons` or `cards`. Attachments, quick replies, buttons and cards are for `instagram` and `facebook` only.
         * @example {
         *       "text": "Yes! Shipping to Portugal takes 3 to 5 days.",
         *       "quickReplies": [
         *         {
         *           "title": "Track my order",
         *           "payload": "TRACK_ORDER"
         *         },
         *         {
         *           "title": "Talk to a person",
         *           "payload": "HUMAN_AGENT"
         *         }
         *       ]
         *     }
         */
        SendMessageBody: {
            text: string;
            /**
             * Format: uri
             * @description Public HTTPS URL of an image, video, audio file or PDF.
             */
            attachmentUrl?: string;
            quickReplies?: components["schemas"]["QuickReply"][];
            buttons?: components["schemas"]["MessageButton"][];
            /** @description A swipeable carousel. */
            cards?: components["schemas"]["MessageCard"][];
        };
        /**
         * @description All optional; only sent fields change.
         * @example {
         *       "enabled": false
         *     }
         */
        UpdateWebhookBody: {
            name?: string;
            /**
             * Format: uri
             * @description An absolute http or https URL. A user name and password in it (`https://user:pass@host/hook`) are sent as `Authorization: Basic`, never in the request line, and shown with the password masked (`https://user:***@host/hook`).
             */
            url?: string;
            events?: components["schemas"]["WebhookEventName"][];
            enabled?: boolean;
        };
        /**
         * @description All optional; only sent fields change (an empty body changes nothing and answers the automation as it is).
         * @example {
         *       "enabled": false
         *     }
         */
        UpdateAutomationBody: {
            name?: string;
            /** @description Replaces the keywords. */
            keywords?: string[];
            /** @description Replaces them; an empty list removes them. */
            excludeKeywords?: string[];
            message?: string;
            /** @description False pauses the rule, true resumes it. */
            enabled?: boolean;
        };
    };
    responses: {
        /**
         * @description The mock's own answer under `--strict-responses` (which the test suite always uses) when the
         *     response it was about to send would break this contract: `CONTRACT_VIOLATION`, with the
         *     operation, the status and the problems in `details`. It is a bug report about the mock, never
         *     an answer of the real service, so contract coverage and scenario rules leave it out
         *     (`x-mock-only`).
         */
        ContractViolation: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "CONTRACT_VIOLATION",
                 *         "message": "The mock's response broke its own contract (getPost 200): body/post must have required property 'status'",
                 *         "details": {
                 *           "operationId": "getPost",
                 *           "status": 200,
                 *           "problems": [
                 *             "body/post must have required property 'status'"
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
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
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
        /**
         * @description The request is invalid. `VALIDATION_ERROR` (bad field, limit, time format, sort, include, unknown
         *     field, malformed JSON; `param` names the field), `INVALID_CURSOR`, `INVALID_RANGE`, `TEXT_TOO_LONG`,
         *     `PLATFORM_NOT_SUPPORTED`, `ACCOUNT_RECONNECT_REQUIRED` or `MESSAGING_WINDOW_CLOSED`.
         */
        BadRequest: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description Missing or invalid credentials. */
        Unauthorized: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "UNAUTHORIZED",
                 *         "message": "Missing or invalid credentials."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description The key is read-only (`FORBIDDEN`, `details.scope` is `read`): it may call every GET
         *     operation and nothing else. A refused write counts against the workspace's budget like
         *     any other refusal. The reference mentions read-only keys for a status page but shows
         *     neither their scopes nor this answer; its status and code are the mock's choice
         *     (docs/decisions/0013-read-only-keys.md).
         */
        Forbidden: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "FORBIDDEN",
                 *         "message": "This key is read-only: createPost (POST /v1/posts) needs a full key.",
                 *         "details": {
                 *           "scope": "read",
                 *           "operationId": "createPost"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The workspace wallet cannot pay for the action (`INSUFFICIENT_WALLET`, `details` with `balanceCents` and `priceCents`), or a `free` workspace has no account slot left (`PLAN_LIMIT_REACHED`, `details` with `slots` and `connected`). */
        PaymentRequired: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "INSUFFICIENT_WALLET",
                 *         "message": "The workspace wallet has too little credit to connect another account."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The resource does not exist in this workspace (`NOT_FOUND`). */
        NotFound: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "NOT_FOUND",
                 *         "message": "Post 0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b not found."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description `IDEMPOTENCY_KEY_IN_USE` (a request with the same Idempotency-Key is still running) or `CONFLICT` (the resource's state does not allow the action). */
        Conflict: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The request body is too large (`PAYLOAD_TOO_LARGE`). */
        PayloadTooLarge: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "PAYLOAD_TOO_LARGE",
                 *         "message": "Request body exceeds 1 MB."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The request body is not `application/json` (`UNSUPPORTED_MEDIA_TYPE`). */
        UnsupportedMediaType: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "UNSUPPORTED_MEDIA_TYPE",
                 *         "message": "Content-Type must be application/json."
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The Idempotency-Key was already used with a different body (`IDEMPOTENCY_KEY_REUSED`). */
        UnprocessableEntity: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "IDEMPOTENCY_KEY_REUSED",
                 *         "message": "This Idempotency-Key was used with a different request body.",
                 *         "param": "Idempotency-Key"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /**
         * @description Over a budget. `RATE_LIMITED` (workspace request budget) uses the flat envelope RateLimitError;
         *     `VELOCITY_LIMITED` (an account's posting velocity cap) uses the nested ErrorResponse.
         */
        TooManyRequests: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["RateLimitError"] | components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The network failed or answered an error (`PLATFORM_ERROR`; `details.platform` names it). */
        PlatformError: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "PLATFORM_ERROR",
                 *         "message": "tiktok did not answer in time.",
                 *         "details": {
                 *           "platform": "tiktok"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
    };
    parameters: {
        /** @description Id of the resource named by the path. */
        PathId: string;
        /** @description Lowercase network identifier, for example `bluesky` or `instagram`. */
        PlatformPath: components["schemas"]["Platform"];
        /** @description The `connectSession` value the redirect URL received. */
        SessionId: string;
        /** @description Comment id from the comment list or a comment event; works only in the workspace that received it. */
        CommentId: string;
        /** @description Conversation id from the conversation list, create-conversation or an inbox webhook; works only in the workspace that received it. */
        ConversationId: string;
        /** @description Id of a delivery record of the webhook. */
        DeliveryId: string;
        /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
        Cursor: string;
        /** @description Page size. */
        Limit50of100: number;
        /** @description Page size. */
        Limit50of50: number;
        /** @description Page size. */
        Limit20of20: number;
        /** @description Number of reviews returned when `include` has `reviews`. */
        Limit20of50: number;
        /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
        Since: string;
        /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
        Until: string;
        /** @description A repeat with the same key and body within 24 hours answers the first response (with `Idempotent-Replayed`) instead of acting again. The same key with a different body answers `422 IDEMPOTENCY_KEY_REUSED`; while the first request is still running, `409 IDEMPOTENCY_KEY_IN_USE`. 429 and 5xx responses are not kept. */
        IdempotencyKey: string;
        /** @description The event name, as in the body's `event`. */
        WebhookEventHeader: components["schemas"]["WebhookEventName"];
        /** @description The event id, as in the body's `id`; stable across retries, so use it to drop duplicates. */
        WebhookEventIdHeader: string;
        /** @description 1 for the first attempt, then 2 to 6 for the retries (each 1 min, 5 min, 30 min, 2 h and 6 h after the attempt before it); a redeliver sends the next number. */
        WebhookDeliveryAttemptHeader: number;
        /** @description Present when the webhook has a secret: `sha256=` followed by the lowercase hex HMAC-SHA256 of the raw request body, keyed with the secret. */
        WebhookSignatureHeader: string;
    };
    requestBodies: {
        /** @description The post to create, with its destinations, text, media and schedule. */
        CreatePostBody: {
            content: {
                "application/json": {
                    destinations: components["schemas"]["PostDestinationInput"][];
                    /** @default  */
                    text?: string;
                    /** @description A thread of posts, on networks that support threads. */
                    thread?: string[];
                    /** @default [] */
                    mediaUrls?: string[];
                    mediaKind?: components["schemas"]["MediaKind"];
                    /** @description Timezone-naive local date-time in `timezone` (YYYY-MM-DDTHH:MM:SS); omit to publish now. */
                    scheduledFor?: string;
                    /** @description IANA timezone name for `scheduledFor`, for example `Europe/Lisbon`. */
                    timezone?: string;
                };
            };
        };
        /** @description The webhook to create. */
        CreateWebhookBody: {
            content: {
                "application/json": {
                    name: string;
                    /**
                     * Format: uri
                     * @description An absolute http or https URL. A user name and password in it (`https://user:pass@host/hook`) are sent as `Authorization: Basic`, never in the request line, and shown with the password masked (`https://user:***@host/hook`).
                     */
                    url: string;
                    events: components["schemas"]["WebhookEventName"][];
                    /** @description Signs every request (`X-Gateway-Signature`); never returned. */
                    secret?: string;
                    /** @default true */
                    enabled?: boolean;
                };
            };
        };
        /** @description The automation rule to create. */
        CreateAutomationBody: {
            content: {
                "application/json": {
                    accountId: string;
                    name: string;
                    /**
                     * @description Closed in requests; the mock refuses kinds it cannot run.
                     * @enum {string}
                     */
                    kind: "comment_to_dm" | "story_reply" | "welcome_dm";
                    keywords: string[];
                    excludeKeywords?: string[];
                    message: string;
                    /** @default true */
                    enabled?: boolean;
                };
            };
        };
    };
    headers: {
        /** @description Budget of the window behind this endpoint (requests per minute, or per second for the analytics endpoints). */
        "X-RateLimit-Limit": number;
        /** @description Calls left before the window fills. */
        "X-RateLimit-Remaining": number;
        /** @description Unix time in seconds when the oldest in-flight request ages out of the window. */
        "X-RateLimit-Reset": number;
        /** @description Seconds to wait before retrying. */
        "Retry-After": number;
        /** @description `true` when this is the stored first response of an earlier request with the same `Idempotency-Key`; absent otherwise. */
        "Idempotent-Replayed": "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listConnections: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspace's connections. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    connectAccount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lowercase network identifier, for example `bluesky` or `instagram`. */
                platform: components["parameters"]["PlatformPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConnectAccountBody"];
            };
        };
        responses: {
            /** @description The new connection (app-password networks) or the sign-in URL (OAuth networks). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectionEnvelope"] | components["schemas"]["OAuthRedirect"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["PaymentRequired"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getConnectionStats: {
        parameters: {
            query?: {
                /** @description Comma-separated. Accepted values `messenger-profile`, `reviews`. */
                include?: string;
                /** @description Number of reviews returned when `include` has `reviews`. */
                limit?: components["parameters"]["Limit20of50"];
            };
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's stats. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectionStats"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
        };
    };
    listConnectionMedia: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit20of20"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the account's media. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectionMediaPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
        };
    };
    getCreatorInfo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The creator info. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatorInfoResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
        };
    };
    listPinBoards: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connection's boards. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PinBoards"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
        };
    };
    updateBlueskySettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateBlueskySettingsBody"];
            };
        };
        responses: {
            /** @description The settings after the change. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueskySettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listConnectCandidates: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The `connectSession` value the redirect URL received. */
                sessionId: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The candidates. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectCandidateList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    listPendingInstagramAccounts: {
        parameters: {
            query: {
                /** @description The `tempToken` value the redirect URL received. */
                tempToken: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pending accounts. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingInstagramAccountList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    listAccounts: {
        parameters: {
            query?: {
                /** @description Only accounts of this network. */
                platform?: components["schemas"]["Platform"];
                /** @description Only accounts in this status. */
                status?: components["schemas"]["AccountStatus"];
                /** @description Order of the list. */
                sort?: "created_desc" | "created_asc";
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
                /** @description Comma-separated. Accepted value `total` (adds `total`, the count across all pages). */
                include?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of accounts. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    disconnectAccount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Disconnected. Empty body. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    reconnectAccount: {
        parameters: {
            query?: never;
            header?: {
                /** @description A repeat with the same key and body within 24 hours answers the first response (with `Idempotent-Replayed`) instead of acting again. The same key with a different body answers `422 IDEMPOTENCY_KEY_REUSED`; while the first request is still running, `409 IDEMPOTENCY_KEY_IN_USE`. 429 and 5xx responses are not kept. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ReconnectAccountBody"];
            };
        };
        responses: {
            /** @description The sign-in URL (OAuth networks) or the reconnected account (`bluesky`). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthRedirect"] | components["schemas"]["AccountReconnected"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getAccountAnalytics: {
        parameters: {
            query?: {
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of daily insight points. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountAnalyticsPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
        };
    };
    syncAccount: {
        parameters: {
            query?: never;
            header?: {
                /** @description A repeat with the same key and body within 24 hours answers the first response (with `Idempotent-Replayed`) instead of acting again. The same key with a different body answers `422 IDEMPOTENCY_KEY_REUSED`; while the first request is still running, `409 IDEMPOTENCY_KEY_IN_USE`. 429 and 5xx responses are not kept. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SyncAccountBody"];
            };
        };
        responses: {
            /** @description The synced posts. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SyncResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listReviews: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of50"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of reviews. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReviewPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    listProfiles: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of profiles. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProfilePage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateProfileBody"];
            };
        };
        responses: {
            /** @description The new profile. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    deleteProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. Empty body. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    presignMedia: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PresignMediaBody"];
            };
        };
        responses: {
            /** @description The presigned upload. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PresignedUpload"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listMedia: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
                /** @description Comma-separated. Accepted value `total` (adds `total`, the count across all pages). */
                include?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of media. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    listPosts: {
        parameters: {
            query?: {
                /** @description Only posts in this status. */
                status?: components["schemas"]["PostStatus"];
                /** @description Only posts with a destination on this network. */
                platform?: components["schemas"]["Platform"];
                /** @description Only posts with a destination on this connection. */
                connectionId?: string;
                /** @description `api` for posts created through the API, `external` for posts imported by sync. */
                source?: "api" | "external";
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
                /** @description `created_*`, `published_*`, `scheduled_*` (each `asc` or `desc`) or `metric:<name>` (a NormalizedMetrics key, highest first). */
                sort?: string;
                /** @description Comma-separated. Accepted values `total` (count across all pages) and `facets` (counts per status and platform). */
                include?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of posts. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createPost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreatePostBody"];
        responses: {
            /** @description The new post, `queued` or `scheduled`. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The post. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    deletePost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The post, now `deleted`. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    cancelPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The post, now `cancelled`. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getPostAnalyticsTimeline: {
        parameters: {
            query?: {
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
            };
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The post's timeline. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostAnalyticsTimeline"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    getAnalytics: {
        parameters: {
            query?: {
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
                /** @description Only destinations on this network. */
                platform?: components["schemas"]["Platform"];
                /** @description Only destinations on this connection. */
                connectionId?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of destination metrics. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostAnalyticsPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    getAnalyticsTimeline: {
        parameters: {
            query?: {
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
                /** @description Only destinations on this network. */
                platform?: components["schemas"]["Platform"];
                /** @description Only destinations on this connection. */
                connectionId?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of timeline points. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnalyticsTimelinePage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    listComments: {
        parameters: {
            query?: {
                /** @description Service post id, or network-native post id (then `accountId` is needed too). */
                post?: string;
                /** @description The account that published the post. */
                accountId?: string;
                /** @description Identifies one destination alone. */
                destinationId?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of50"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of comments. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createComment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateCommentBody"];
            };
        };
        responses: {
            /** @description The new comment. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedCommentEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    replyToComment: {
        parameters: {
            query?: never;
            header?: {
                /** @description A repeat with the same key and body within 24 hours answers the first response (with `Idempotent-Replayed`) instead of acting again. The same key with a different body answers `422 IDEMPOTENCY_KEY_REUSED`; while the first request is still running, `409 IDEMPOTENCY_KEY_IN_USE`. 429 and 5xx responses are not kept. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description Comment id from the comment list or a comment event; works only in the workspace that received it. */
                id: components["parameters"]["CommentId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplyToCommentBody"];
            };
        };
        responses: {
            /** @description The reply. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    likeComment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LikeCommentBody"];
            };
        };
        responses: {
            /** @description The comment is liked. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentLikeResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    likePost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PostTargetBody"];
            };
        };
        responses: {
            /** @description The post is liked (`kind` `like`, `active` true). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EngagementResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    unlikePost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PostTargetBody"];
            };
        };
        responses: {
            /** @description The like is removed (`kind` `like`, `active` false). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EngagementResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    repost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DestinationTargetBody"];
            };
        };
        responses: {
            /** @description Reposted (`kind` `repost`, `active` true). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EngagementResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    undoRepost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DestinationTargetBody"];
            };
        };
        responses: {
            /** @description The repost is removed (`kind` `repost`, `active` false). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EngagementResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    bookmarkPost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DestinationTargetBody"];
            };
        };
        responses: {
            /** @description Bookmarked (`kind` `bookmark`, `active` true). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EngagementResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    removeBookmark: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DestinationTargetBody"];
            };
        };
        responses: {
            /** @description The bookmark is removed (`kind` `bookmark`, `active` false). */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EngagementResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    quotePost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuoteBody"];
            };
        };
        responses: {
            /** @description The quote post (`kind` `quote`, `active` true). */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuoteResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listConversations: {
        parameters: {
            query: {
                /** @description The connection whose inbox to list. */
                accountId: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of conversations. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateConversationBody"];
            };
        };
        responses: {
            /** @description The account already had a conversation with this person; here it is. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationEnvelope"];
                };
            };
            /** @description The conversation. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description A repeat with the same key and body within 24 hours answers the first response (with `Idempotent-Replayed`) instead of acting again. The same key with a different body answers `422 IDEMPOTENCY_KEY_REUSED`; while the first request is still running, `409 IDEMPOTENCY_KEY_IN_USE`. 429 and 5xx responses are not kept. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
                /** @description Conversation id from the conversation list, create-conversation or an inbox webhook; works only in the workspace that received it. */
                conversationId: components["parameters"]["ConversationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendMessageBody"];
            };
        };
        responses: {
            /** @description The sent message. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of webhooks. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateWebhookBody"];
        responses: {
            /** @description The new webhook. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. Empty body. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookBody"];
            };
        };
        responses: {
            /** @description The webhook after the change. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test delivery. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
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
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Start of the range, inclusive. ISO 8601 date-time with `Z` or an offset (encode `+` as `%2B`); a date alone or a time without a zone answers `400 VALIDATION_ERROR`. Must be before `until`, else `400 INVALID_RANGE`. */
                since?: components["parameters"]["Since"];
                /** @description End of the range, exclusive. ISO 8601 date-time with `Z` or an offset. */
                until?: components["parameters"]["Until"];
                /** @description Only deliveries in this status. */
                status?: "pending" | "succeeded" | "failed";
                /** @description Only deliveries of this event. */
                event?: components["schemas"]["WebhookEventName"];
                /** @description Comma-separated. Accepted values `facets` (counts per status) and `histogram` (counts over time). */
                include?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of deliveries. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
                /** @description Id of a delivery record of the webhook. */
                deliveryId: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery record. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
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
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    listAutomations: {
        parameters: {
            query?: {
                /** @description Only automations of this account. */
                accountId?: string;
                /** @description Page size. */
                limit?: components["parameters"]["Limit50of100"];
                /** @description The `nextCursor` of the previous page, unchanged, with the other parameters unchanged. Omit for the first page. A changed or foreign cursor answers `400 INVALID_CURSOR`. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of automations. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AutomationPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    createAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateAutomationBody"];
        responses: {
            /** @description The new automation. */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    getAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The automation. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
        };
    };
    deleteAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. Empty body. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
    updateAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the resource named by the path. */
                id: components["parameters"]["PathId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateAutomationBody"];
            };
        };
        responses: {
            /** @description The automation after the change. */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["ContractViolation"];
            503: components["responses"]["DataFileUnwritable"];
        };
    };
}
