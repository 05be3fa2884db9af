import { accountView, scheduleTokenExpiry } from '../api/accounts/service.js';
import { accountsStore, type AccountRecord } from '../api/accounts/store.js';
import { describeMediaProblem, mediaProblem, POST_TEXT_MAX } from '../api/posts/network-rules.js';
import { addPost } from '../api/posts/store.js';
import { NO_OPTIONS, type DestinationRecord, type PostRecord } from '../api/posts/records.js';
import { platformFacts } from '../platforms/catalog.js';
import { externalPostRef } from '../platforms/external-ids.js';
import type { Workspace } from '../workspaces/workspace.js';
import { resolveMoment } from './moments.js';
import type { WorldAccountSpec, WorldPostSpec } from './scenario.js';

/*
 * What a scenario changes in the world, and the account transitions its timeline
 * plays. Each works on the stores directly, in one small function, so that the
 * accounts and posts capabilities can swap in their services without touching the
 * scenario engine.
 */

/** Reports a problem with a scenario field (the loader points it at a line). */
export type Fail = (reason: string) => never;

/** An account by id, or by platform id: the workspace's first account on that network (oldest first). */
export function findAccount(workspace: Workspace, ref: string): AccountRecord | undefined {
  const accounts = accountsStore.get(workspace).accounts;
  const byId = accounts[ref];
  if (byId) return byId;
  return Object.values(accounts)
    .filter((account) => account.platform === ref)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))[0];
}

export function resolveAccount(workspace: Workspace, ref: string, fail: Fail): AccountRecord {
  const account = findAccount(workspace, ref);
  if (account) return account;
  const platforms = [...new Set(Object.values(accountsStore.get(workspace).accounts).map((a) => a.platform))];
  return fail(
    platforms.length === 0
      ? `no account "${ref}": the workspace has no accounts (is "fixtures: false" set?)`
      : `no account "${ref}" in the workspace (an account id, or a platform with an account: ${platforms.join(', ')})`,
  );
}

/** Applies one `accounts` entry of a scenario to the world (no events: this is the world as it starts). */
export function changeWorldAccount(workspace: Workspace, spec: WorldAccountSpec, loadedAtMs: number, fail: Fail): void {
  const account = resolveAccount(workspace, spec.account, fail);
  if (spec.status !== undefined) {
    account.status = spec.status;
    account.authHealth = spec.status === 'active' ? 'healthy' : 'action_required';
  }
  if (spec.authHealth !== undefined) account.authHealth = spec.authHealth;
  if (spec.canAutoRenew !== undefined) account.canAutoRenew = spec.canAutoRenew;
  if (spec.tokenExpiresAt !== undefined) {
    account.tokenExpiresAt = spec.tokenExpiresAt === null ? null : new Date(resolveMoment(spec.tokenExpiresAt, loadedAtMs)).toISOString();
  }
  account.updatedAt = new Date(Math.max(Date.parse(account.updatedAt), loadedAtMs)).toISOString();
  // The fixture world's token jobs were made before the scenario: the account's own must follow its new token.
  scheduleTokenExpiry(workspace, account);
}

/** Adds one `posts` entry of a scenario (`count` posts, `spacing` apart) to the world. */
export function addWorldPosts(workspace: Workspace, spec: WorldPostSpec, loadedAtMs: number, fail: (field: string | number, reason: string) => never): void {
  const accounts = spec.to.map((ref, i) => resolveAccount(workspace, ref, (reason) => fail(i, reason)));
  accounts.forEach((account, i) => {
    const problem = mediaProblem(account.platform, spec.media ?? 'text', spec.media ? 1 : 0);
    if (!problem) return;
    const reason = describeMediaProblem(account.platform, problem);
    fail(i, problem.problem === 'needs-media' ? `${reason}: add "media: ${problem.takes.includes('image') ? 'image' : 'video'}"` : reason);
  });
  const firstMs = resolveMoment(spec.when, loadedAtMs);
  if (firstMs + (spec.count - 1) * spec.spacingMs > loadedAtMs) fail('count', 'the last of these posts would go out after the scenario starts; start earlier or space them closer');
  const limit = Math.min(POST_TEXT_MAX, ...accounts.map((account) => platformFacts(account.platform)?.textLimit ?? POST_TEXT_MAX));
  for (let n = 0; n < spec.count; n++) {
    const atMs = firstMs + n * spec.spacingMs;
    const at = new Date(atMs).toISOString();
    const destinations = accounts.map((account): DestinationRecord => {
      const ref = spec.status === 'published' ? externalPostRef(workspace, account.platform, account, { atMs }) : null;
      return {
        id: workspace.newId(),
        connectionId: account.id,
        platform: account.platform,
        status: spec.status,
        externalPostId: ref?.externalPostId ?? null,
        externalUrl: ref?.externalUrl ?? null,
        errorCode: spec.status === 'failed' ? (spec.error?.code ?? 'PLATFORM_ERROR') : null,
        errorMessage: spec.status === 'failed' ? (spec.error?.message ?? 'The network rejected the post.') : null,
        publishedAt: spec.status === 'published' ? at : null,
        text: null,
        options: NO_OPTIONS,
        metricsSeed: workspace.faker.number.int({ min: 1, max: 0x7fffffff }),
      };
    });
    const mediaUrls = spec.media ? [`https://cdn.gateway.example/media/${workspace.newHex(32)}${spec.media === 'video' ? '.mp4' : '.jpg'}`] : [];
    const post: PostRecord = {
      id: workspace.newId(),
      text: clip(spec.text ?? workspace.faker.lorem.sentence({ min: 6, max: 16 }), limit),
      mediaUrls,
      mediaKind: spec.media ?? 'text',
      status: spec.status,
      scheduledFor: null,
      timezone: null,
      scheduledAtMs: null,
      source: 'api',
      thread: null,
      destinations,
      createdAt: at,
      updatedAt: at,
    };
    addPost(workspace, post);
  }
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** The account statuses a timeline step can move an account to. */
export type EndedAuthorization = 'expired' | 'revoked';

/**
 * The account's authorization ends, as the network would end it: the account needs a
 * reconnect, and `account.expired` goes out (its description covers both an expiry and
 * a revocation). The accounts capability may replace this with its own service.
 */
export function endAuthorization(workspace: Workspace, account: AccountRecord, status: EndedAuthorization): void {
  const now = workspace.nowIso();
  account.status = status;
  account.authHealth = 'action_required';
  account.canAutoRenew = false;
  if (status === 'expired' && (account.tokenExpiresAt === null || account.tokenExpiresAt > now)) account.tokenExpiresAt = now;
  account.updatedAt = now;
  workspace.events.emit('account.expired', { account: accountView(workspace, account) });
  workspace.changed();
}
