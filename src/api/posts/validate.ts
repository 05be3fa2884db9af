import type { components } from '../../generated/openapi.js';
import { ApiError, validationError } from '../../lib/errors.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore, type AccountRecord } from '../accounts/store.js';
import { isKnownZone, resolveLocalTime } from './local-time.js';
import { DESTINATION_FIELDS, MEDIA_COUNTS, defaultMediaKind, mediaProblem, networkPostRules, networksWithField, textLimitFor } from './network-rules.js';
import { NO_OPTIONS, type MediaKind } from './records.js';
import { getOwn, hasRecords } from '../../lib/records.js';
import { checkTextLimit } from '../../platforms/text-limit.js';

export type CreatePostBody = components['requestBodies']['CreatePostBody']['content']['application/json'];
type DestinationInput = components['schemas']['PostDestinationInput'];

/** One destination of a request that passed every check. */
export interface PlannedDestination {
  account: AccountRecord;
  /** The destination's own text, when it replaces the post's; null otherwise. */
  text: string | null;
  /** The network fields that were sent (title, subreddit, privacyLevel, …). */
  options: Readonly<Record<string, unknown>>;
}

export interface PlannedSchedule {
  /** As the integrator sent it. */
  scheduledFor: string;
  /** The IANA zone name exactly as the client sent it (decision 0049). */
  timezone: string;
  /** The UTC instant it fires at. */
  atMs: number;
}

/** A create-post request that passed every check: what createPost stores. */
export interface PostPlan {
  text: string;
  thread: string[] | null;
  mediaUrls: string[];
  mediaKind: MediaKind;
  schedule: PlannedSchedule | null;
  destinations: PlannedDestination[];
}

/**
 * Checks a create-post body against the workspace's connections and every
 * network's rules, and answers what to create, or throws the first problem. It
 * changes nothing, so a refused request leaves the state as it was. The contract
 * has already checked types, lengths, enums and patterns; these are the rules
 * across fields and networks. Mistakes in the request come before the state of
 * the accounts: a body that could never publish is reported as such even when an
 * account also needs a reconnect.
 */
export function planPost(workspace: Workspace, body: CreatePostBody): PostPlan {
  const text = body.text ?? '';
  const thread = body.thread ?? null;
  const mediaUrls = body.mediaUrls ?? [];

  if (thread) {
    if (text !== '') throw validationError('text', 'A thread takes its text from thread (its first item is the post text); leave text out.');
    thread.forEach((item, j) => {
      if (item.trim() === '') throw validationError(`thread[${j}]`, 'Every thread item needs text.');
    });
  }

  const mediaKind = body.mediaKind ?? defaultMediaKind(mediaUrls);
  const counts = MEDIA_COUNTS[mediaKind];
  if (mediaUrls.length < counts.min || mediaUrls.length > counts.max) {
    const wanted = counts.min === counts.max ? `${counts.min}` : `${counts.min} to ${counts.max}`;
    throw validationError('mediaKind', `A ${mediaKind} post carries ${wanted} media URL${counts.max === 1 ? '' : 's'}; mediaUrls has ${mediaUrls.length}.`);
  }

  const schedule = planSchedule(workspace, body);

  const accounts = accountsStore.get(workspace).accounts;
  const seen = new Map<string, number>();
  const destinations = body.destinations.map((input, i): PlannedDestination => {
    const at = `destinations[${i}]`;
    const account = getOwn(accounts, input.connectionId);
    if (!account) throw validationError(`${at}.connectionId`, `No connection '${input.connectionId}' in this workspace.`);
    const earlier = seen.get(input.connectionId);
    if (earlier !== undefined) throw validationError(`${at}.connectionId`, `The post already goes to this connection (destinations[${earlier}]); name each connection once.`);
    seen.set(input.connectionId, i);
    checkDestination(input, at, account, { text, thread, mediaUrls, mediaKind });
    const { connectionId: _connectionId, text: ownText, ...options } = input;
    return { account, text: ownText ?? null, options: hasRecords(options) ? options : NO_OPTIONS };
  });

  // The state of the accounts, once the request itself is known to be sound.
  destinations.forEach(({ account }, i) => {
    if (account.status !== 'active') throw reconnectToPublish(account, i);
  });

  return { text: thread?.[0] ?? text, thread, mediaUrls: [...mediaUrls], mediaKind, schedule, destinations };
}

/**
 * `scheduledFor` and `timezone` come together (docs/decisions/0002): a local time
 * without its zone is ambiguous, and a zone alone suggests a schedule the client
 * believes it sent. Both absent: publish now.
 */
function planSchedule(workspace: Workspace, body: CreatePostBody): PlannedSchedule | null {
  const { scheduledFor, timezone } = body;
  if (scheduledFor === undefined && timezone === undefined) return null;
  if (timezone === undefined) throw validationError('timezone', 'scheduledFor is a local time: send the IANA timezone it is in (for example America/New_York).');
  if (scheduledFor === undefined) throw validationError('scheduledFor', 'timezone only applies to scheduledFor: send both to schedule the post, or neither to publish it now.');
  if (!isKnownZone(timezone)) throw validationError('timezone', `'${timezone}' is not an IANA time zone name (for example Europe/Lisbon).`);
  const resolved = resolveLocalTime(scheduledFor, timezone);
  if (!resolved) throw validationError('scheduledFor', `'${scheduledFor}' is not a date and time that exists (YYYY-MM-DDTHH:MM:SS).`);
  if (resolved.instantMs <= workspace.now()) {
    throw validationError('scheduledFor', `${scheduledFor} in ${timezone} is ${new Date(resolved.instantMs).toISOString()}, which is not in the future (now ${workspace.nowIso()}).`);
  }
  return { scheduledFor, timezone, atMs: resolved.instantMs };
}

/** A destination's account is not active (also what a scenario rule's ACCOUNT_RECONNECT_REQUIRED answers on createPost). */
export function reconnectToPublish(account: { id: string; platform: string; status: string }, index: number): ApiError {
  return new ApiError(400, 'ACCOUNT_RECONNECT_REQUIRED', `The ${account.platform} connection ${account.id} is ${account.status}; reconnect it before publishing to it.`, {
    param: `destinations[${index}].connectionId`,
    details: { accountId: account.id, platform: account.platform, status: account.status },
  });
}

interface SharedContent {
  text: string;
  thread: string[] | null;
  mediaUrls: string[];
  mediaKind: MediaKind;
}

/** One destination against its network's rules: its fields, its media, its thread and its text. */
function checkDestination(input: DestinationInput, at: string, account: AccountRecord, content: SharedContent): void {
  const platform = account.platform;
  const rules = networkPostRules(platform);

  for (const field of DESTINATION_FIELDS) {
    if (input[field] === undefined || rules.fields.includes(field)) continue;
    throw validationError(`${at}.${field}`, `${field} applies to ${describeNetworks(networksWithField(field))}, not to ${platform}.`);
  }
  for (const field of rules.required) {
    if (input[field] === undefined) throw validationError(`${at}.${field}`, `A ${platform} post needs ${field}.`);
  }

  if (content.thread) {
    if (!rules.threads) {
      throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${platform} (${at}) does not publish threads; threads publish on twitter, bluesky and threads.`, {
        param: 'thread',
        details: { platform },
      });
    }
    if (input.text !== undefined) throw validationError(`${at}.text`, 'A thread post takes its text from thread; a destination text cannot replace it.');
  }

  const { mediaKind, mediaUrls } = content;
  const media = mediaProblem(platform, mediaKind, mediaUrls.length);
  if (media?.problem === 'needs-media') {
    throw new ApiError(400, 'VALIDATION_ERROR', `${platform} (${at}) cannot publish a post without media; it takes ${media.takes.join(', ')}.`, { param: 'mediaUrls', details: { platform } });
  }
  if (media?.problem === 'kind') {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${platform} (${at}) does not publish ${mediaKind} posts; it takes ${media.takes.join(', ')}.`, { param: 'mediaKind', details: { platform } });
  }
  if (media?.problem === 'too-many-images') {
    throw new ApiError(400, 'VALIDATION_ERROR', `${platform} (${at}) takes at most ${media.limit} images in one post; mediaUrls has ${media.count}.`, {
      param: 'mediaUrls',
      details: { platform, limit: media.limit },
    });
  }

  const limit = textLimitFor(account);
  if (content.thread) {
    content.thread.forEach((item, j) => checkTextLimit(item, limit, platform, `thread[${j}]`));
    return;
  }
  const ownText = input.text !== undefined;
  const text = input.text ?? content.text;
  const textParam = ownText ? `${at}.text` : 'text';
  checkTextLimit(text, limit, platform, textParam);
  // Something must be published: text, media, or (on the forum network) a title.
  if (mediaKind === 'text' && text.trim() === '' && input.title === undefined) {
    throw validationError(textParam, `A post without media needs text (${at} is on ${platform}).`);
  }
}

function describeNetworks(platforms: string[]): string {
  return platforms.length === 0 ? 'no network' : platforms.join(', ');
}

