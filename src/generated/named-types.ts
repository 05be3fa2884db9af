/* eslint-disable */
// Generated from openapi.yaml and control.yaml by `npm run generate` (scripts/generated-types.ts). Do not edit by hand.

import type { components, operations } from './openapi.js';
import type { components as ControlComponents, operations as ControlOperations } from './control.js';

/**
 * Nested error envelope, used by every error except `429 RATE_LIMITED`.
 * openapi.yaml: `#/components/schemas/ErrorResponse`.
 */
export type ErrorResponse = components['schemas']['ErrorResponse'];

/**
 * Flat error envelope used only by `429 RATE_LIMITED` (the workspace request budget).
 * openapi.yaml: `#/components/schemas/RateLimitError`.
 */
export type RateLimitError = components['schemas']['RateLimitError'];

/**
 * Lowercase network identifier. Open enumeration: new networks can be added, so clients must
 * tolerate values they do not know. Known: `twitter` (microblogging), `bluesky` (decentralized),
 * `instagram` (photo-sharing), `facebook` (page-based), `threads` (text-thread), `pinterest`
 * (pin-board), `tiktok` (short-video), `linkedin` (professional), `reddit` (forum), `youtube` (video).
 * openapi.yaml: `#/components/schemas/Platform`.
 */
export type Platform = components['schemas']['Platform'];

/**
 * Open enumeration. `active` works normally; `expired`, `revoked` and `error` need a reconnect
 * before the account can publish again (`expired` also covers an authorization that ran out and
 * cannot renew by itself). New values can be added.
 * openapi.yaml: `#/components/schemas/AccountStatus`.
 */
export type AccountStatus = components['schemas']['AccountStatus'];

/**
 * `action_required` when the owner must reconnect (the account is not `active`).
 * openapi.yaml: `#/components/schemas/AuthHealth`.
 */
export type AuthHealth = components['schemas']['AuthHealth'];

/**
 * Status of a post or of one destination. `queued` → `processing` → `published` | `failed`;
 * `scheduled` → (at fire time) `processing` → …; `scheduled` → `cancelled`; `published` → `deleted`.
 * A post with some destinations published and some failed is `published`.
 * openapi.yaml: `#/components/schemas/PostStatus`.
 */
export type PostStatus = components['schemas']['PostStatus'];

/**
 * Kind of media of a post.
 * openapi.yaml: `#/components/schemas/MediaKind`.
 */
export type MediaKind = components['schemas']['MediaKind'];

/**
 * Open enumeration. `comment_to_dm` answers a comment with a direct message, `story_reply` answers a
 * story reply, `welcome_dm` answers a message. New values can be added.
 * openapi.yaml: `#/components/schemas/AutomationKind`.
 */
export type AutomationKind = components['schemas']['AutomationKind'];

/**
 * Name of a webhook event.
 * openapi.yaml: `#/components/schemas/WebhookEventName`.
 */
export type WebhookEventName = components['schemas']['WebhookEventName'];

/**
 * A connected account in the list and connect shape.
 * openapi.yaml: `#/components/schemas/Connection`.
 */
export type Connection = components['schemas']['Connection'];

/**
 * openapi.yaml: `#/components/schemas/ConnectionEnvelope`.
 */
export type ConnectionEnvelope = components['schemas']['ConnectionEnvelope'];

/**
 * openapi.yaml: `#/components/schemas/ConnectionList`.
 */
export type ConnectionList = components['schemas']['ConnectionList'];

/**
 * Where the account owner signs in. A sign-in that finishes after `expiresAt` returns to the redirect URL with `error=SESSION_EXPIRED`.
 * openapi.yaml: `#/components/schemas/OAuthRedirect`.
 */
export type OAuthRedirect = components['schemas']['OAuthRedirect'];

/**
 * A connected account in the single-account shape. A disconnected account is no longer returned.
 * openapi.yaml: `#/components/schemas/Account`.
 */
export type Account = components['schemas']['Account'];

/**
 * The reconnected account (every Account field) with `type: account`; the `bluesky` reconnect answer.
 * openapi.yaml: `#/components/schemas/AccountReconnected`.
 */
export type AccountReconnected = components['schemas']['AccountReconnected'];

/**
 * openapi.yaml: `#/components/schemas/AccountPage`.
 */
export type AccountPage = components['schemas']['AccountPage'];

/**
 * Account insights of one day; null where the network does not report the value.
 * openapi.yaml: `#/components/schemas/AccountInsightPoint`.
 */
export type AccountInsightPoint = components['schemas']['AccountInsightPoint'];

/**
 * openapi.yaml: `#/components/schemas/AccountAnalyticsPage`.
 */
export type AccountAnalyticsPage = components['schemas']['AccountAnalyticsPage'];

/**
 * openapi.yaml: `#/components/schemas/ConnectionStats`.
 */
export type ConnectionStats = components['schemas']['ConnectionStats'];

/**
 * Messenger profile of a `facebook` page; only with `include=messenger-profile`.
 * openapi.yaml: `#/components/schemas/MessengerProfile`.
 */
export type MessengerProfile = components['schemas']['MessengerProfile'];

/**
 * openapi.yaml: `#/components/schemas/ConnectionMediaItem`.
 */
export type ConnectionMediaItem = components['schemas']['ConnectionMediaItem'];

/**
 * openapi.yaml: `#/components/schemas/ConnectionMediaPage`.
 */
export type ConnectionMediaPage = components['schemas']['ConnectionMediaPage'];

/**
 * What a `tiktok` creator may post with.
 * openapi.yaml: `#/components/schemas/CreatorInfo`.
 */
export type CreatorInfo = components['schemas']['CreatorInfo'];

/**
 * openapi.yaml: `#/components/schemas/CreatorInfoResponse`.
 */
export type CreatorInfoResponse = components['schemas']['CreatorInfoResponse'];

/**
 * openapi.yaml: `#/components/schemas/PinBoards`.
 */
export type PinBoards = components['schemas']['PinBoards'];

/**
 * openapi.yaml: `#/components/schemas/BlueskySettings`.
 */
export type BlueskySettings = components['schemas']['BlueskySettings'];

/**
 * A page (or page-linked photo-sharing account) that can be connected in a headless connect session.
 * openapi.yaml: `#/components/schemas/ConnectCandidate`.
 */
export type ConnectCandidate = components['schemas']['ConnectCandidate'];

/**
 * openapi.yaml: `#/components/schemas/ConnectCandidateList`.
 */
export type ConnectCandidateList = components['schemas']['ConnectCandidateList'];

/**
 * A page-linked `instagram` account that can be connected after a `facebook_login` connect.
 * openapi.yaml: `#/components/schemas/PendingInstagramAccount`.
 */
export type PendingInstagramAccount = components['schemas']['PendingInstagramAccount'];

/**
 * openapi.yaml: `#/components/schemas/PendingInstagramAccountList`.
 */
export type PendingInstagramAccountList = components['schemas']['PendingInstagramAccountList'];

/**
 * A group of connections.
 * openapi.yaml: `#/components/schemas/Profile`.
 */
export type Profile = components['schemas']['Profile'];

/**
 * openapi.yaml: `#/components/schemas/ProfilePage`.
 */
export type ProfilePage = components['schemas']['ProfilePage'];

/**
 * An uploaded media file.
 * openapi.yaml: `#/components/schemas/MediaAsset`.
 */
export type MediaAsset = components['schemas']['MediaAsset'];

/**
 * openapi.yaml: `#/components/schemas/MediaPage`.
 */
export type MediaPage = components['schemas']['MediaPage'];

/**
 * openapi.yaml: `#/components/schemas/PresignedUpload`.
 */
export type PresignedUpload = components['schemas']['PresignedUpload'];

/**
 * A post in the grouped shape (one post, one or more destinations).
 * openapi.yaml: `#/components/schemas/Post`.
 */
export type Post = components['schemas']['Post'];

/**
 * One destination (one connected account) of a post.
 * openapi.yaml: `#/components/schemas/PostDestination`.
 */
export type PostDestination = components['schemas']['PostDestination'];

/**
 * openapi.yaml: `#/components/schemas/PostEnvelope`.
 */
export type PostEnvelope = components['schemas']['PostEnvelope'];

/**
 * openapi.yaml: `#/components/schemas/PostPage`.
 */
export type PostPage = components['schemas']['PostPage'];

/**
 * A post in the single-account shape, returned by account sync.
 * openapi.yaml: `#/components/schemas/AccountPost`.
 */
export type AccountPost = components['schemas']['AccountPost'];

/**
 * openapi.yaml: `#/components/schemas/SyncResult`.
 */
export type SyncResult = components['schemas']['SyncResult'];

/**
 * Engagement metrics normalized across networks; null where the network does not report the value.
 * openapi.yaml: `#/components/schemas/NormalizedMetrics`.
 */
export type NormalizedMetrics = components['schemas']['NormalizedMetrics'];

/**
 * NormalizedMetrics, or null before the first reading (a post's destination, an account's post).
 * OpenAPI 3.0 cannot make a `$ref` nullable (`nullable` only widens a `type` beside it, and an `allOf`
 * of NormalizedMetrics would still refuse null), so the same properties are written out here;
 * test/contract/codegen.test.ts fails if the two drift apart.
 * openapi.yaml: `#/components/schemas/NullableNormalizedMetrics`.
 */
export type NullableNormalizedMetrics = components['schemas']['NullableNormalizedMetrics'];

/**
 * Metrics of one day's reading.
 * openapi.yaml: `#/components/schemas/TimelineMetrics`.
 */
export type TimelineMetrics = components['schemas']['TimelineMetrics'];

/**
 * Change since the previous point; the first point has null for every key.
 * openapi.yaml: `#/components/schemas/TimelineDelta`.
 */
export type TimelineDelta = components['schemas']['TimelineDelta'];

/**
 * One UTC day with a reading.
 * openapi.yaml: `#/components/schemas/TimelinePoint`.
 */
export type TimelinePoint = components['schemas']['TimelinePoint'];

/**
 * openapi.yaml: `#/components/schemas/PostAnalyticsTimeline`.
 */
export type PostAnalyticsTimeline = components['schemas']['PostAnalyticsTimeline'];

/**
 * Metrics of one published destination.
 * openapi.yaml: `#/components/schemas/PostAnalytics`.
 */
export type PostAnalytics = components['schemas']['PostAnalytics'];

/**
 * openapi.yaml: `#/components/schemas/PostAnalyticsPage`.
 */
export type PostAnalyticsPage = components['schemas']['PostAnalyticsPage'];

/**
 * openapi.yaml: `#/components/schemas/AnalyticsTimelinePage`.
 */
export type AnalyticsTimelinePage = components['schemas']['AnalyticsTimelinePage'];

/**
 * Comment shape A, answered by create-comment. It is the network's own view, so `id` and `parentId` are network comment ids.
 * openapi.yaml: `#/components/schemas/CreatedComment`.
 */
export type CreatedComment = components['schemas']['CreatedComment'];

/**
 * openapi.yaml: `#/components/schemas/CreatedCommentEnvelope`.
 */
export type CreatedCommentEnvelope = components['schemas']['CreatedCommentEnvelope'];

/**
 * Comment shape B, answered by reply-to-comment and listed by the comment list.
 * openapi.yaml: `#/components/schemas/Comment`.
 */
export type Comment = components['schemas']['Comment'];

/**
 * openapi.yaml: `#/components/schemas/CommentPage`.
 */
export type CommentPage = components['schemas']['CommentPage'];

/**
 * openapi.yaml: `#/components/schemas/CommentLikeResult`.
 */
export type CommentLikeResult = components['schemas']['CommentLikeResult'];

/**
 * openapi.yaml: `#/components/schemas/EngagementResult`.
 */
export type EngagementResult = components['schemas']['EngagementResult'];

/**
 * The engagement result of a quote (`kind` `quote`, `active` true) with the new quote post.
 * openapi.yaml: `#/components/schemas/QuoteResult`.
 */
export type QuoteResult = components['schemas']['QuoteResult'];

/**
 * openapi.yaml: `#/components/schemas/ConversationMember`.
 */
export type ConversationMember = components['schemas']['ConversationMember'];

/**
 * A direct-message conversation (inbox list item).
 * openapi.yaml: `#/components/schemas/Conversation`.
 */
export type Conversation = components['schemas']['Conversation'];

/**
 * openapi.yaml: `#/components/schemas/ConversationList`.
 */
export type ConversationList = components['schemas']['ConversationList'];

/**
 * openapi.yaml: `#/components/schemas/ConversationEnvelope`.
 */
export type ConversationEnvelope = components['schemas']['ConversationEnvelope'];

/**
 * openapi.yaml: `#/components/schemas/MessageAttachment`.
 */
export type MessageAttachment = components['schemas']['MessageAttachment'];

/**
 * A direct message.
 * openapi.yaml: `#/components/schemas/Message`.
 */
export type Message = components['schemas']['Message'];

/**
 * openapi.yaml: `#/components/schemas/QuickReply`.
 */
export type QuickReply = components['schemas']['QuickReply'];

/**
 * `postback` buttons carry `payload`; `web_url` buttons carry `url`.
 * openapi.yaml: `#/components/schemas/MessageButton`.
 */
export type MessageButton = components['schemas']['MessageButton'];

/**
 * One card of a swipeable carousel.
 * openapi.yaml: `#/components/schemas/MessageCard`.
 */
export type MessageCard = components['schemas']['MessageCard'];

/**
 * A page review on `facebook`.
 * openapi.yaml: `#/components/schemas/Review`.
 */
export type Review = components['schemas']['Review'];

/**
 * openapi.yaml: `#/components/schemas/ReviewPage`.
 */
export type ReviewPage = components['schemas']['ReviewPage'];

/**
 * openapi.yaml: `#/components/schemas/Webhook`.
 */
export type Webhook = components['schemas']['Webhook'];

/**
 * openapi.yaml: `#/components/schemas/WebhookPage`.
 */
export type WebhookPage = components['schemas']['WebhookPage'];

/**
 * openapi.yaml: `#/components/schemas/WebhookDeliveryAttempt`.
 */
export type WebhookDeliveryAttempt = components['schemas']['WebhookDeliveryAttempt'];

/**
 * One event sent to one webhook, with all its attempts.
 * openapi.yaml: `#/components/schemas/WebhookDelivery`.
 */
export type WebhookDelivery = components['schemas']['WebhookDelivery'];

/**
 * openapi.yaml: `#/components/schemas/WebhookDeliveryPage`.
 */
export type WebhookDeliveryPage = components['schemas']['WebhookDeliveryPage'];

/**
 * Body of every webhook request. `id` is stable across retries. The shape of `data` depends on
 * `event`: PostEventData (`post.scheduled`, `post.published`, `post.failed`, `post.partial`,
 * `post.cancelled`, `post.deleted`, `post.external.created`), PostPlatformEventData
 * (`post.platform.published`, `post.platform.failed`), AccountEventData (`account.connected`,
 * `account.expired`, `account.reconnected`), DisconnectedAccount (`account.disconnected`),
 * CommentEventData (`comment.received`, `comment.replied`), MessageEventData (`message.received`,
 * `message.sent`), ConversationEventData (`conversation.started`), ReviewEventData (`review.new`),
 * AutomationEventData (`automation.triggered`, `automation.failed`), WebhookTestEventData
 * (`webhook.test`).
 * openapi.yaml: `#/components/schemas/WebhookEvent`.
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/**
 * Data of the post-level events; `post` is the post after the change.
 * openapi.yaml: `#/components/schemas/PostEventData`.
 */
export type PostEventData = components['schemas']['PostEventData'];

/**
 * Data of the per-destination events; on `post.platform.failed`, `destination.errorCode` says why (for example `VELOCITY_LIMITED`).
 * openapi.yaml: `#/components/schemas/PostPlatformEventData`.
 */
export type PostPlatformEventData = components['schemas']['PostPlatformEventData'];

/**
 * Data of `account.connected`, `account.expired` and `account.reconnected`.
 * openapi.yaml: `#/components/schemas/AccountEventData`.
 */
export type AccountEventData = components['schemas']['AccountEventData'];

/**
 * Data of `account.disconnected`, the record of an account that is no longer connected.
 * openapi.yaml: `#/components/schemas/DisconnectedAccount`.
 */
export type DisconnectedAccount = components['schemas']['DisconnectedAccount'];

/**
 * Data of `comment.received` (a new comment from someone) and `comment.replied` (a reply sent by the account). `comment.id` works with reply-to-comment.
 * openapi.yaml: `#/components/schemas/CommentEventData`.
 */
export type CommentEventData = components['schemas']['CommentEventData'];

/**
 * Data of `message.received` and `message.sent`. `accountId` and `message.conversationId` work with send-message.
 * openapi.yaml: `#/components/schemas/MessageEventData`.
 */
export type MessageEventData = components['schemas']['MessageEventData'];

/**
 * Data of `conversation.started`.
 * openapi.yaml: `#/components/schemas/ConversationEventData`.
 */
export type ConversationEventData = components['schemas']['ConversationEventData'];

/**
 * Data of `review.new`.
 * openapi.yaml: `#/components/schemas/ReviewEventData`.
 */
export type ReviewEventData = components['schemas']['ReviewEventData'];

/**
 * Data of `automation.triggered` (the direct message was sent) and `automation.failed` (`error` says why).
 * openapi.yaml: `#/components/schemas/AutomationEventData`.
 */
export type AutomationEventData = components['schemas']['AutomationEventData'];

/**
 * Data of `webhook.test`.
 * openapi.yaml: `#/components/schemas/WebhookTestEventData`.
 */
export type WebhookTestEventData = components['schemas']['WebhookTestEventData'];

/**
 * A rule that answers a comment, story reply or message with a direct message.
 * openapi.yaml: `#/components/schemas/Automation`.
 */
export type Automation = components['schemas']['Automation'];

/**
 * openapi.yaml: `#/components/schemas/AutomationPage`.
 */
export type AutomationPage = components['schemas']['AutomationPage'];

/**
 * Union of the app-password form (`bluesky`: `identifier`, `appPassword`, `reconnectId`), the OAuth
 * form (`redirectUrl`, `headless`, `loginMethod`) and the completing form (`connectSession` or
 * `tempToken`, with `candidateId`), plus `profileName` and `metadata`. The mock checks which fields
 * the named network and form need.
 * openapi.yaml: `#/components/schemas/ConnectAccountBody`.
 */
export type ConnectAccountBody = components['schemas']['ConnectAccountBody'];

/**
 * openapi.yaml: `#/components/schemas/ReconnectAccountBody`.
 */
export type ReconnectAccountBody = components['schemas']['ReconnectAccountBody'];

/**
 * openapi.yaml: `#/components/schemas/UpdateBlueskySettingsBody`.
 */
export type UpdateBlueskySettingsBody = components['schemas']['UpdateBlueskySettingsBody'];

/**
 * openapi.yaml: `#/components/schemas/CreateProfileBody`.
 */
export type CreateProfileBody = components['schemas']['CreateProfileBody'];

/**
 * openapi.yaml: `#/components/schemas/PresignMediaBody`.
 */
export type PresignMediaBody = components['schemas']['PresignMediaBody'];

/**
 * openapi.yaml: `#/components/schemas/SyncAccountBody`.
 */
export type SyncAccountBody = components['schemas']['SyncAccountBody'];

/**
 * One destination of a new post; the other fields apply on the networks that know them.
 * openapi.yaml: `#/components/schemas/PostDestinationInput`.
 */
export type PostDestinationInput = components['schemas']['PostDestinationInput'];

/**
 * Identify the destination with `destinationId` alone, or with `post` (service post id, or a network-native post id together with `accountId`).
 * openapi.yaml: `#/components/schemas/CreateCommentBody`.
 */
export type CreateCommentBody = components['schemas']['CreateCommentBody'];

/**
 * openapi.yaml: `#/components/schemas/ReplyToCommentBody`.
 */
export type ReplyToCommentBody = components['schemas']['ReplyToCommentBody'];

/**
 * openapi.yaml: `#/components/schemas/LikeCommentBody`.
 */
export type LikeCommentBody = components['schemas']['LikeCommentBody'];

/**
 * Identify the destination with `destinationId` alone, or with `post` (service post id, or a network-native post id together with `accountId`).
 * openapi.yaml: `#/components/schemas/PostTargetBody`.
 */
export type PostTargetBody = components['schemas']['PostTargetBody'];

/**
 * openapi.yaml: `#/components/schemas/DestinationTargetBody`.
 */
export type DestinationTargetBody = components['schemas']['DestinationTargetBody'];

/**
 * openapi.yaml: `#/components/schemas/QuoteBody`.
 */
export type QuoteBody = components['schemas']['QuoteBody'];

/**
 * openapi.yaml: `#/components/schemas/CreateConversationBody`.
 */
export type CreateConversationBody = components['schemas']['CreateConversationBody'];

/**
 * `attachmentUrl` cannot be combined with `buttons` or `cards`. Attachments, quick replies, buttons and cards are for `instagram` and `facebook` only.
 * openapi.yaml: `#/components/schemas/SendMessageBody`.
 */
export type SendMessageBody = components['schemas']['SendMessageBody'];

/**
 * All optional; only sent fields change.
 * openapi.yaml: `#/components/schemas/UpdateWebhookBody`.
 */
export type UpdateWebhookBody = components['schemas']['UpdateWebhookBody'];

/**
 * All optional; only sent fields change (an empty body changes nothing and answers the automation as it is).
 * openapi.yaml: `#/components/schemas/UpdateAutomationBody`.
 */
export type UpdateAutomationBody = components['schemas']['UpdateAutomationBody'];

/**
 * The post to create, with its destinations, text, media and schedule.
 * openapi.yaml: `#/components/requestBodies/CreatePostBody`.
 */
export type CreatePostBody = components['requestBodies']['CreatePostBody']['content']['application/json'];

/**
 * The webhook to create.
 * openapi.yaml: `#/components/requestBodies/CreateWebhookBody`.
 */
export type CreateWebhookBody = components['requestBodies']['CreateWebhookBody']['content']['application/json'];

/**
 * The automation rule to create.
 * openapi.yaml: `#/components/requestBodies/CreateAutomationBody`.
 */
export type CreateAutomationBody = components['requestBodies']['CreateAutomationBody']['content']['application/json'];

/**
 * Response body of `connectAccount` (`POST /v1/connections/{platform}/connect`) in openapi.yaml (200).
 */
export type ConnectAccountResponse = operations['connectAccount']['responses'][200]['content']['application/json'];

/**
 * Response body of `reconnectAccount` (`POST /v1/accounts/{id}/reconnect`) in openapi.yaml (200).
 */
export type ReconnectAccountResponse = operations['reconnectAccount']['responses'][200]['content']['application/json'];

/**
 * Request body of `likePost` (`POST /v1/likes`) in openapi.yaml.
 */
export type LikePostBody = PostTargetBody;

/**
 * Request body of `unlikePost` (`DELETE /v1/likes`) in openapi.yaml.
 */
export type UnlikePostBody = PostTargetBody;

/**
 * Request body of `repost` (`POST /v1/reposts`) in openapi.yaml.
 */
export type RepostBody = DestinationTargetBody;

/**
 * Request body of `undoRepost` (`DELETE /v1/reposts`) in openapi.yaml.
 */
export type UndoRepostBody = DestinationTargetBody;

/**
 * Request body of `bookmarkPost` (`POST /v1/bookmarks`) in openapi.yaml.
 */
export type BookmarkPostBody = DestinationTargetBody;

/**
 * Request body of `removeBookmark` (`DELETE /v1/bookmarks`) in openapi.yaml.
 */
export type RemoveBookmarkBody = DestinationTargetBody;

/**
 * Request body of `quotePost` (`POST /v1/quotes`) in openapi.yaml.
 */
export type QuotePostBody = QuoteBody;

/**
 * control.yaml: `#/components/schemas/ErrorResponse`.
 */
export type ControlErrorResponse = ControlComponents['schemas']['ErrorResponse'];

/**
 * control.yaml: `#/components/schemas/Health`.
 */
export type ControlHealth = ControlComponents['schemas']['Health'];

/**
 * Failures the server caught where they happened since it started, each logged once with
 * its stack (decision 0041). None should ever happen: each is a bug of the mock. A request
 * still open was answered 500 INTERNAL_ERROR with the log line's id in `details.requestId`;
 * the rest (a response's close handler, a timer, a webhook attempt, an event stream) ended
 * only their own work, and the server went on serving every workspace.
 * control.yaml: `#/components/schemas/ContainedFailures`.
 */
export type ControlContainedFailures = ControlComponents['schemas']['ContainedFailures'];

/**
 * control.yaml: `#/components/schemas/PlanName`.
 */
export type ControlPlanName = ControlComponents['schemas']['PlanName'];

/**
 * control.yaml: `#/components/schemas/WorkspaceList`.
 */
export type ControlWorkspaceList = ControlComponents['schemas']['WorkspaceList'];

/**
 * control.yaml: `#/components/schemas/WorkspaceListing`.
 */
export type ControlWorkspaceListing = ControlComponents['schemas']['WorkspaceListing'];

/**
 * control.yaml: `#/components/schemas/DeletedWorkspace`.
 */
export type ControlDeletedWorkspace = ControlComponents['schemas']['DeletedWorkspace'];

/**
 * control.yaml: `#/components/schemas/CreatedWorkspace`.
 */
export type ControlCreatedWorkspace = ControlComponents['schemas']['CreatedWorkspace'];

/**
 * control.yaml: `#/components/schemas/Clock`.
 */
export type ControlClock = ControlComponents['schemas']['Clock'];

/**
 * control.yaml: `#/components/schemas/AdvanceClockBody`.
 */
export type ControlAdvanceClockBody = ControlComponents['schemas']['AdvanceClockBody'];

/**
 * control.yaml: `#/components/schemas/SetClockBody`.
 */
export type ControlSetClockBody = ControlComponents['schemas']['SetClockBody'];

/**
 * control.yaml: `#/components/schemas/PendingJob`.
 */
export type ControlPendingJob = ControlComponents['schemas']['PendingJob'];

/**
 * control.yaml: `#/components/schemas/PendingJobList`.
 */
export type ControlPendingJobList = ControlComponents['schemas']['PendingJobList'];

/**
 * control.yaml: `#/components/schemas/RanJob`.
 */
export type ControlRanJob = ControlComponents['schemas']['RanJob'];

/**
 * control.yaml: `#/components/schemas/ClockMove`.
 */
export type ControlClockMove = ControlComponents['schemas']['ClockMove'];

/**
 * control.yaml: `#/components/schemas/JournalEntry`.
 */
export type ControlJournalEntry = ControlComponents['schemas']['JournalEntry'];

/**
 * control.yaml: `#/components/schemas/ContractFinding`.
 */
export type ControlContractFinding = ControlComponents['schemas']['ContractFinding'];

/**
 * control.yaml: `#/components/schemas/JournalPage`.
 */
export type ControlJournalPage = ControlComponents['schemas']['JournalPage'];

/**
 * What a key may do. `full`, every operation; `read`, the API's GET operations only (every other answers `403 FORBIDDEN`).
 * control.yaml: `#/components/schemas/KeyScope`.
 */
export type ControlKeyScope = ControlComponents['schemas']['KeyScope'];

/**
 * control.yaml: `#/components/schemas/CreatedApiKey`.
 */
export type ControlCreatedApiKey = ControlComponents['schemas']['CreatedApiKey'];

/**
 * control.yaml: `#/components/schemas/RevokedApiKey`.
 */
export type ControlRevokedApiKey = ControlComponents['schemas']['RevokedApiKey'];

/**
 * `requests`: the per-minute budget of every endpoint; `analytics`: the per-second budget of GET /v1/analytics and GET /v1/analytics/timeline.
 * control.yaml: `#/components/schemas/BudgetName`.
 */
export type ControlBudgetName = ControlComponents['schemas']['BudgetName'];

/**
 * control.yaml: `#/components/schemas/BudgetWindow`.
 */
export type ControlBudgetWindow = ControlComponents['schemas']['BudgetWindow'];

/**
 * control.yaml: `#/components/schemas/VelocityWindow`.
 */
export type ControlVelocityWindow = ControlComponents['schemas']['VelocityWindow'];

/**
 * control.yaml: `#/components/schemas/AccountVelocity`.
 */
export type ControlAccountVelocity = ControlComponents['schemas']['AccountVelocity'];

/**
 * control.yaml: `#/components/schemas/Limits`.
 */
export type ControlLimits = ControlComponents['schemas']['Limits'];

/**
 * control.yaml: `#/components/schemas/UpdateLimitsBody`.
 */
export type ControlUpdateLimitsBody = ControlComponents['schemas']['UpdateLimitsBody'];

/**
 * control.yaml: `#/components/schemas/WebhookFaults`.
 */
export type ControlWebhookFaults = ControlComponents['schemas']['WebhookFaults'];

/**
 * One event sent to one webhook with all its attempts, as the API's `WebhookDelivery`.
 * control.yaml: `#/components/schemas/WebhookDelivery`.
 */
export type ControlWebhookDelivery = ControlComponents['schemas']['WebhookDelivery'];

/**
 * How many attempts fail, and how; exactly one of `status`, `timeout` and `reset`.
 * control.yaml: `#/components/schemas/WebhookFailuresBody`.
 */
export type ControlWebhookFailuresBody = ControlComponents['schemas']['WebhookFailuresBody'];

/**
 * control.yaml: `#/components/schemas/PostOutcomeBody`.
 */
export type ControlPostOutcomeBody = ControlComponents['schemas']['PostOutcomeBody'];

/**
 * How a destination will end; null when the network decides.
 * control.yaml: `#/components/schemas/DecidedOutcome`.
 */
export type ControlDecidedOutcome = ControlComponents['schemas']['DecidedOutcome'];

/**
 * control.yaml: `#/components/schemas/PostOutcome`.
 */
export type ControlPostOutcome = ControlComponents['schemas']['PostOutcome'];

/**
 * One of the 22 events of openapi.yaml.
 * control.yaml: `#/components/schemas/EventName`.
 */
export type ControlEventName = ControlComponents['schemas']['EventName'];

/**
 * control.yaml: `#/components/schemas/EmitEventBody`.
 */
export type ControlEmitEventBody = ControlComponents['schemas']['EmitEventBody'];

/**
 * control.yaml: `#/components/schemas/EmittedEventResult`.
 */
export type ControlEmittedEventResult = ControlComponents['schemas']['EmittedEventResult'];

/**
 * control.yaml: `#/components/schemas/InboundCommentBody`.
 */
export type ControlInboundCommentBody = ControlComponents['schemas']['InboundCommentBody'];

/**
 * control.yaml: `#/components/schemas/InboundMessageBody`.
 */
export type ControlInboundMessageBody = ControlComponents['schemas']['InboundMessageBody'];

/**
 * control.yaml: `#/components/schemas/InboundStoryReplyBody`.
 */
export type ControlInboundStoryReplyBody = ControlComponents['schemas']['InboundStoryReplyBody'];

/**
 * control.yaml: `#/components/schemas/InboundReviewBody`.
 */
export type ControlInboundReviewBody = ControlComponents['schemas']['InboundReviewBody'];

/**
 * An event the call emitted, as webhooks receive it.
 * control.yaml: `#/components/schemas/EmittedEvent`.
 */
export type ControlEmittedEvent = ControlComponents['schemas']['EmittedEvent'];

/**
 * One automation the call set off.
 * control.yaml: `#/components/schemas/AutomationRun`.
 */
export type ControlAutomationRun = ControlComponents['schemas']['AutomationRun'];

/**
 * control.yaml: `#/components/schemas/InboundCommentResult`.
 */
export type ControlInboundCommentResult = ControlComponents['schemas']['InboundCommentResult'];

/**
 * control.yaml: `#/components/schemas/InboundMessageResult`.
 */
export type ControlInboundMessageResult = ControlComponents['schemas']['InboundMessageResult'];

/**
 * control.yaml: `#/components/schemas/InboundReviewResult`.
 */
export type ControlInboundReviewResult = ControlComponents['schemas']['InboundReviewResult'];

/**
 * openapi.yaml's Comment (shape B).
 * control.yaml: `#/components/schemas/Comment`.
 */
export type ControlComment = ControlComponents['schemas']['Comment'];

/**
 * openapi.yaml's Message.
 * control.yaml: `#/components/schemas/Message`.
 */
export type ControlMessage = ControlComponents['schemas']['Message'];

/**
 * openapi.yaml's Conversation.
 * control.yaml: `#/components/schemas/Conversation`.
 */
export type ControlConversation = ControlComponents['schemas']['Conversation'];

/**
 * openapi.yaml's Review.
 * control.yaml: `#/components/schemas/Review`.
 */
export type ControlReview = ControlComponents['schemas']['Review'];

/**
 * control.yaml: `#/components/schemas/AccountStatusChange`.
 */
export type ControlAccountStatusChange = ControlComponents['schemas']['AccountStatusChange'];

/**
 * The account in the API's single-account shape.
 * control.yaml: `#/components/schemas/AccountState`.
 */
export type ControlAccountState = ControlComponents['schemas']['AccountState'];

/**
 * control.yaml: `#/components/schemas/Wallet`.
 */
export type ControlWallet = ControlComponents['schemas']['Wallet'];

/**
 * control.yaml: `#/components/schemas/WalletChange`.
 */
export type ControlWalletChange = ControlComponents['schemas']['WalletChange'];

/**
 * control.yaml: `#/components/schemas/WorkspaceSummary`.
 */
export type ControlWorkspaceSummary = ControlComponents['schemas']['WorkspaceSummary'];

/**
 * control.yaml: `#/components/schemas/WorkspaceSnapshot`.
 */
export type ControlWorkspaceSnapshot = ControlComponents['schemas']['WorkspaceSnapshot'];

/**
 * control.yaml: `#/components/schemas/WorkspaceData`.
 */
export type ControlWorkspaceData = ControlComponents['schemas']['WorkspaceData'];

/**
 * control.yaml: `#/components/schemas/JobRecord`.
 */
export type ControlJobRecord = ControlComponents['schemas']['JobRecord'];

/**
 * control.yaml: `#/components/schemas/WorkspaceBase`.
 */
export type ControlWorkspaceBase = ControlComponents['schemas']['WorkspaceBase'];

/**
 * How the workspace was made, so a reset returns to it.
 * control.yaml: `#/components/schemas/WorkspaceOrigin`.
 */
export type ControlWorkspaceOrigin = ControlComponents['schemas']['WorkspaceOrigin'];

/**
 * Exactly one of `name` and `yaml`.
 * control.yaml: `#/components/schemas/LoadScenarioBody`.
 */
export type ControlLoadScenarioBody = ControlComponents['schemas']['LoadScenarioBody'];

/**
 * control.yaml: `#/components/schemas/ScenarioRuleView`.
 */
export type ControlScenarioRuleView = ControlComponents['schemas']['ScenarioRuleView'];

/**
 * control.yaml: `#/components/schemas/ScenarioView`.
 */
export type ControlScenarioView = ControlComponents['schemas']['ScenarioView'];

/**
 * control.yaml: `#/components/schemas/LoadedScenario`.
 */
export type ControlLoadedScenario = ControlComponents['schemas']['LoadedScenario'];

/**
 * control.yaml: `#/components/schemas/ScenarioList`.
 */
export type ControlScenarioList = ControlComponents['schemas']['ScenarioList'];

/**
 * control.yaml: `#/components/schemas/CoverageRatio`.
 */
export type ControlCoverageRatio = ControlComponents['schemas']['CoverageRatio'];

/**
 * control.yaml: `#/components/schemas/CoverageReport`.
 */
export type ControlCoverageReport = ControlComponents['schemas']['CoverageReport'];

/**
 * control.yaml: `#/components/schemas/OperationCoverage`.
 */
export type ControlOperationCoverage = ControlComponents['schemas']['OperationCoverage'];

/**
 * One rule, as a scenario file writes it (see docs/scenarios.md, Rules). Beyond the shape
 * below, the rule is checked as a scenario's is: against `scenarios/scenario.schema.json`
 * and the checks a schema cannot make; a problem is `400 INVALID_SCENARIO` naming the field.
 * control.yaml: `#/components/schemas/RuleBody`.
 */
export type ControlRuleBody = ControlComponents['schemas']['RuleBody'];

/**
 * control.yaml: `#/components/schemas/ActiveRule`.
 */
export type ControlActiveRule = ControlComponents['schemas']['ActiveRule'];

/**
 * control.yaml: `#/components/schemas/RuleList`.
 */
export type ControlRuleList = ControlComponents['schemas']['RuleList'];

/**
 * The new workspace's plan, seed, fixtures (and their pending work), clock and scenario; every field optional.
 * control.yaml: `#/components/requestBodies/CreateWorkspaceBody`.
 */
export type ControlCreateWorkspaceBody = ControlComponents['requestBodies']['CreateWorkspaceBody']['content']['application/json'];

/**
 * The webhook's delivery faults; `{}` clears them.
 * control.yaml: `#/components/requestBodies/WebhookFaultsBody`.
 */
export type ControlWebhookFaultsBody = ControlComponents['requestBodies']['WebhookFaultsBody']['content']['application/json'];

/**
 * Request body of `createApiKey` (`POST /__control/keys`) in control.yaml.
 */
export type ControlCreateApiKeyBody = NonNullable<ControlOperations['createApiKey']['requestBody']>['content']['application/json'];

/**
 * Request body of `setWebhookFaults` (`POST /__control/webhooks/{id}/faults`) in control.yaml.
 */
export type ControlSetWebhookFaultsBody = ControlWebhookFaultsBody;

/**
 * Request body of `failWebhookDeliveries` (`POST /__control/webhooks/{id}/failures`) in control.yaml.
 */
export type ControlFailWebhookDeliveriesBody = ControlWebhookFailuresBody;

/**
 * Request body of `setPostOutcome` (`POST /__control/posts/{id}/outcome`) in control.yaml.
 */
export type ControlSetPostOutcomeBody = ControlPostOutcomeBody;

/**
 * Request body of `receiveInboundComment` (`POST /__control/inbound/comments`) in control.yaml.
 */
export type ControlReceiveInboundCommentBody = ControlInboundCommentBody;

/**
 * Request body of `receiveInboundMessage` (`POST /__control/inbound/messages`) in control.yaml.
 */
export type ControlReceiveInboundMessageBody = ControlInboundMessageBody;

/**
 * Request body of `receiveInboundStoryReply` (`POST /__control/inbound/story-replies`) in control.yaml.
 */
export type ControlReceiveInboundStoryReplyBody = ControlInboundStoryReplyBody;

/**
 * Request body of `receiveInboundReview` (`POST /__control/inbound/reviews`) in control.yaml.
 */
export type ControlReceiveInboundReviewBody = ControlInboundReviewBody;

/**
 * Request body of `setAccountStatus` (`POST /__control/accounts/{id}/status`) in control.yaml.
 */
export type ControlSetAccountStatusBody = ControlAccountStatusChange;

/**
 * Request body of `setWallet` (`POST /__control/wallet`) in control.yaml.
 */
export type ControlSetWalletBody = ControlWalletChange;

/**
 * Request body of `putState` (`PUT /__control/state`) in control.yaml.
 */
export type ControlPutStateBody = ControlWorkspaceSnapshot;

/**
 * Request body of `addRule` (`POST /__control/rules`) in control.yaml.
 */
export type ControlAddRuleBody = ControlRuleBody;
