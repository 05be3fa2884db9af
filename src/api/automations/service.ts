import type { components } from '../../generated/openapi.js';
import { ApiError, notFound, validationError } from '../../lib/errors.js';
import { compareKeys, listPage, type Page } from '../../http/lists.js';
import { checkTextLimit } from '../../platforms/text-limit.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore, type AccountRecord } from '../accounts/store.js';
import { inboxTextLimit, supportsStoryReplies } from '../inbox/service.js';
import { automationsStore, type AutomationKind, type AutomationRecord } from './store.js';
import { getOwn } from '../../lib/records.js';

export type AutomationView = components['schemas']['Automation'];
type CreateAutomationBody = components['requestBodies']['CreateAutomationBody']['content']['application/json'];
type UpdateAutomationBody = components['schemas']['UpdateAutomationBody'];

export function automationView(automation: AutomationRecord): AutomationView {
  return {
    id: automation.id,
    accountId: automation.accountId,
    name: automation.name,
    kind: automation.kind,
    keywords: [...automation.keywords],
    excludeKeywords: [...automation.excludeKeywords],
    message: automation.message,
    enabled: automation.enabled,
    createdAt: automation.createdAt,
    updatedAt: automation.updatedAt,
  };
}

/**
 * Which kinds run on which network: every kind sends a direct message, so the
 * account needs an inbox (bluesky, instagram, facebook); story replies exist only
 * on instagram and facebook.
 */
function checkKindOnNetwork(account: AccountRecord, kind: AutomationKind): void {
  if (inboxTextLimit(account.platform) === null) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${account.platform} has no direct messages, so no automation can answer there; use a bluesky, instagram or facebook account.`, {
      param: 'accountId',
      details: { platform: account.platform },
    });
  }
  if (kind === 'story_reply' && !supportsStoryReplies(account.platform)) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${account.platform} has no stories; story_reply runs on instagram and facebook.`, { param: 'kind', details: { platform: account.platform } });
  }
}

/**
 * Keywords the rule could never act on are refused: a blank one would match every
 * text, and one that is also excluded would cancel itself.
 */
function checkKeywords(keywords: readonly string[], excludeKeywords: readonly string[], sent: { keywords: boolean; excludeKeywords: boolean }): void {
  keywords.forEach((keyword, i) => {
    if (keyword.trim() === '') throw validationError(`keywords[${i}]`, `keywords[${i}] is blank; it would match every text.`);
  });
  excludeKeywords.forEach((keyword, i) => {
    if (keyword.trim() === '') throw validationError(`excludeKeywords[${i}]`, `excludeKeywords[${i}] is blank; it would exclude every text.`);
  });
  const lowered = new Set(keywords.map((keyword) => keyword.toLowerCase()));
  const clash = excludeKeywords.findIndex((keyword) => lowered.has(keyword.toLowerCase()));
  if (clash >= 0) {
    // Name the list the caller sent, so the error points at what they can change.
    const param = sent.excludeKeywords || !sent.keywords ? `excludeKeywords[${clash}]` : 'keywords';
    throw validationError(param, `'${excludeKeywords[clash] ?? ''}' is both a keyword and an exclude keyword; the rule could never run on it.`);
  }
}

/** The message must fit the network's inbox, or every run would fail. */
function checkMessage(account: AccountRecord | undefined, message: string): void {
  const limit = account ? inboxTextLimit(account.platform) : null;
  if (account && limit !== null) checkTextLimit(message, limit, account.platform, 'message');
}

export function getAutomation(workspace: Workspace, id: string): AutomationRecord {
  const automation = getOwn(automationsStore.read(workspace).automations, id);
  if (!automation) throw notFound('Automation', id);
  return automation;
}

/** GET /v1/automations: newest first; an unknown accountId simply matches nothing. */
export function listAutomations(workspace: Workspace, query: { accountId?: string; limit?: number; cursor?: string }): Page<AutomationView> {
  const automations = Object.values(automationsStore.read(workspace).automations).filter((a) => query.accountId === undefined || a.accountId === query.accountId);
  automations.sort((a, b) => compareKeys([a.createdAt, a.id], [b.createdAt, b.id], 'desc'));
  const page = listPage(workspace, { list: 'automations', query, sorted: automations, keyOf: (a) => [a.createdAt, a.id], direction: 'desc', limit: query.limit ?? 50 });
  return { ...page, data: page.data.map(automationView) };
}

export function createAutomation(workspace: Workspace, body: CreateAutomationBody): AutomationRecord {
  const account = getOwn(accountsStore.read(workspace).accounts, body.accountId);
  if (!account) throw new ApiError(404, 'NOT_FOUND', `Account '${body.accountId}' was not found in this workspace.`, { param: 'accountId' });
  checkKindOnNetwork(account, body.kind);
  const excludeKeywords = body.excludeKeywords ?? [];
  checkKeywords(body.keywords, excludeKeywords, { keywords: true, excludeKeywords: body.excludeKeywords !== undefined });
  checkMessage(account, body.message);
  const now = workspace.nowIso();
  const automation: AutomationRecord = {
    id: workspace.newId(),
    accountId: account.id,
    name: body.name,
    kind: body.kind,
    keywords: [...body.keywords],
    excludeKeywords: [...excludeKeywords],
    message: body.message,
    enabled: body.enabled ?? true,
    createdAt: now,
    updatedAt: now,
  };
  automationsStore.get(workspace).automations[automation.id] = automation;
  return automation;
}

/**
 * PATCH /v1/automations/{id}: only the sent fields change; `keywords` and
 * `excludeKeywords` replace the lists (an empty `excludeKeywords` removes them).
 * Everything is checked against the result before anything changes; an empty
 * body changes nothing ("all optional; only sent fields change").
 */
export function updateAutomation(workspace: Workspace, id: string, body: UpdateAutomationBody): AutomationRecord {
  const automation = getAutomation(workspace, id);
  const keywords = body.keywords ?? automation.keywords;
  const excludeKeywords = body.excludeKeywords ?? automation.excludeKeywords;
  checkKeywords(keywords, excludeKeywords, { keywords: body.keywords !== undefined, excludeKeywords: body.excludeKeywords !== undefined });
  if (body.message !== undefined) checkMessage(accountsStore.read(workspace).accounts[automation.accountId], body.message);
  if (body.name !== undefined) automation.name = body.name;
  if (body.keywords !== undefined) automation.keywords = [...body.keywords];
  if (body.excludeKeywords !== undefined) automation.excludeKeywords = [...body.excludeKeywords];
  if (body.message !== undefined) automation.message = body.message;
  if (body.enabled !== undefined) automation.enabled = body.enabled;
  // As the webhook PATCH: `{}` is a no-op that leaves updatedAt where it was; any sent field moves it.
  if (Object.values(body).some((value) => value !== undefined)) automation.updatedAt = workspace.nowIso();
  return automation;
}

export function deleteAutomation(workspace: Workspace, id: string): void {
  getAutomation(workspace, id);
  delete automationsStore.get(workspace).automations[id];
}
