import { encodeComponent } from '../../lib/uri.js';
import type { components } from '../../generated/openapi.js';
import { ApiError, notFound, validationError } from '../../lib/errors.js';
import { randomHex, sameCredential } from '../../lib/credentials.js';
import { getOwn } from '../../lib/records.js';
import { PLATFORM_IDS, platformFacts } from '../../platforms/catalog.js';
import { activeOutage, assertNetworkUp } from '../../platforms/outages.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { addAccountRefusal, assertCanAddAccount } from './billing.js';
import { blueskyIdentity, handleOfIdentifier, identifierNames, identityOfCandidate, offerCandidates, parseBlueskyIdentifier, type BlueskyIdentifier } from './identities.js';
import { accountView, addAccount, allAccounts, getAccount, reactivateAccount } from './service.js';
import { accountsStore, connectSessionsStore, type AccountRecord, type CandidateRecord, type ConnectSessionRecord } from './store.js';

/*
 * The connect and reconnect flows. The decentralized network signs in with an app
 * password at once; OAuth networks return the URL of the mock's own sign-in page
 * (src/api/accounts/oauth-pages.ts), and the owner's decision there finishes the
 * session started here.
 */

/** How long the owner has to sign in (virtual time), as DESIGN.md sets it. */
export const SIGN_IN_LIFETIME_MS = 15 * 60_000;
/** How long after signing in the candidates and tempToken stay usable. */
export const CHOICE_WINDOW_MS = 60 * 60_000;
/** Sessions are forgotten a day after they started. */
const SESSION_RETENTION_MS = 24 * 3_600_000;
/** The app password the mock's network refuses, to rehearse a wrong password. */
export const REFUSED_APP_PASSWORD = 'fail-fail-fail-fail';

export type OAuthRedirect = components['schemas']['OAuthRedirect'];

// ---------------------------------------------------------------------------
// The operations: which form a request is, and its fields for the network
// ---------------------------------------------------------------------------

/** The connect body: the union of the app-password, OAuth and choosing forms. */
export type ConnectBody = components['schemas']['ConnectAccountBody'];
export type LoginMethod = NonNullable<ConnectBody['loginMethod']>;

export type ReconnectBody = components['schemas']['ReconnectAccountBody'];

/** A connect or reconnect answers an account at once (app passwords, choices) or a sign-in URL. */
export type ConnectResult = { kind: 'account'; account: AccountRecord } | { kind: 'oauth'; redirect: OAuthRedirect };

const APP_PASSWORD_FIELDS = ['identifier', 'appPassword', 'reconnectId', 'profileName', 'metadata'] as const;
const OAUTH_START_FIELDS = ['redirectUrl', 'headless', 'loginMethod', 'profileName', 'metadata'] as const;
const CHOICE_FIELDS = ['connectSession', 'tempToken', 'candidateId'] as const;

/** Refuses every sent field outside `allowed`, naming them all (the first as `param`). */
function refuseFields(body: object, allowed: readonly string[], context: string): void {
  const extra = Object.keys(body).filter((field) => !allowed.includes(field) && (body as Record<string, unknown>)[field] !== undefined);
  if (extra.length === 0) return;
  throw validationError(extra[0] as string, `${extra.join(', ')} ${extra.length === 1 ? 'does' : 'do'} not apply ${context}; accepted here: ${allowed.join(', ')}.`);
}

function required<T>(value: T | undefined, param: string, context: string): T {
  if (value === undefined) throw validationError(param, `${param} is required ${context}.`);
  return value;
}

/**
 * `POST /v1/connections/{platform}/connect`: the network and the fields sent pick
 * the form (app password, choosing a candidate, or starting an OAuth sign-in);
 * fields of another form are refused by name before anything changes.
 */
export function connect(workspace: Workspace, platform: string, body: ConnectBody, baseUrl: string): ConnectResult {
  const facts = platformFacts(platform);
  if (!facts) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `The mock cannot connect '${platform}' accounts; it plays ${PLATFORM_IDS.join(', ')}.`, { param: 'platform' });
  }
  if (facts.connect === 'app_password') {
    const context = `to ${platform}, which connects with an identifier and an app password`;
    refuseFields(body, APP_PASSWORD_FIELDS, context);
    const account = connectWithAppPassword(workspace, {
      identifier: required(body.identifier, 'identifier', context),
      appPassword: required(body.appPassword, 'appPassword', context),
      ...(body.reconnectId !== undefined && { reconnectId: body.reconnectId }),
      ...(body.profileName !== undefined && { profileName: body.profileName }),
      ...(body.metadata !== undefined && { metadata: body.metadata }),
    });
    return { kind: 'account', account };
  }
  if (CHOICE_FIELDS.some((field) => body[field] !== undefined)) {
    const context = 'when choosing a candidate of a signed-in session (send connectSession or tempToken, and candidateId)';
    refuseFields(body, CHOICE_FIELDS, context);
    if (body.connectSession !== undefined && body.tempToken !== undefined) throw validationError('tempToken', 'Send connectSession or tempToken, not both.');
    if (body.tempToken !== undefined && platform !== 'instagram') throw validationError('tempToken', 'tempToken comes only from an instagram facebook_login connect.');
    if (body.connectSession === undefined && body.tempToken === undefined) throw validationError('connectSession', `connectSession (or tempToken) is required ${context}.`);
    const account = connectCandidate(workspace, platform, {
      ...(body.connectSession !== undefined && { connectSession: body.connectSession }),
      ...(body.tempToken !== undefined && { tempToken: body.tempToken }),
      candidateId: required(body.candidateId, 'candidateId', context),
    });
    return { kind: 'account', account };
  }
  const context = `to ${platform}, which connects through OAuth`;
  refuseFields(body, OAUTH_START_FIELDS, context);
  if (body.loginMethod !== undefined && platform !== 'instagram') throw validationError('loginMethod', 'loginMethod applies to instagram only.');
  const redirect = startSignIn(
    workspace,
    {
      platform,
      redirectUrl: required(body.redirectUrl, 'redirectUrl', context),
      ...(body.profileName !== undefined && { profileName: body.profileName }),
      ...(body.metadata !== undefined && { metadata: body.metadata }),
      ...(body.headless !== undefined && { headless: body.headless }),
      ...(body.loginMethod !== undefined && { loginMethod: body.loginMethod }),
    },
    baseUrl,
  );
  return { kind: 'oauth', redirect };
}

/**
 * `POST /v1/accounts/{id}/reconnect`: the decentralized network re-authorizes at
 * once with a new app password (`redirectUrl` ignored, as the reference says);
 * OAuth networks start a sign-in with the same account.
 */
export function reconnect(workspace: Workspace, accountId: string, body: ReconnectBody, baseUrl: string): ConnectResult {
  const account = getAccount(workspace, accountId);
  if (platformFacts(account.platform)?.connect === 'app_password') {
    const reconnected = reconnectWithAppPassword(workspace, account, {
      ...(body.identifier !== undefined && { identifier: body.identifier }),
      ...(body.appPassword !== undefined && { appPassword: body.appPassword }),
    });
    return { kind: 'account', account: reconnected };
  }
  const context = `to reconnect a ${account.platform} account, which signs in through OAuth`;
  refuseFields(body, ['redirectUrl'], context);
  return { kind: 'oauth', redirect: startSignIn(workspace, { platform: account.platform, account, redirectUrl: required(body.redirectUrl, 'redirectUrl', context) }, baseUrl) };
}

// ---------------------------------------------------------------------------
// The decentralized network: app passwords
// ---------------------------------------------------------------------------

function readIdentifier(raw: string): BlueskyIdentifier {
  const identifier = parseBlueskyIdentifier(raw);
  if (!identifier) throw validationError('identifier', `identifier '${raw}' is not a handle (name.bsky.social), an email address or a DID (did:plc:…).`);
  return identifier;
}

/** The network checks the password; the mock's network refuses exactly one, so a wrong password can be rehearsed. */
function signInWithAppPassword(workspace: Workspace, appPassword: string): void {
  assertNetworkUp(workspace, 'bluesky');
  if (appPassword === REFUSED_APP_PASSWORD) {
    throw new ApiError(400, 'VALIDATION_ERROR', 'The decentralized network refused the identifier and app password: check both, or create a new app password.', {
      param: 'appPassword',
      details: { platform: 'bluesky', reason: 'invalid_credentials' },
    });
  }
}

export interface AppPasswordConnect {
  identifier: string;
  appPassword: string;
  reconnectId?: string;
  profileName?: string;
  metadata?: Record<string, unknown>;
}

/** `POST /v1/connections/bluesky/connect`: a new account, or with reconnectId the same one re-authorized. */
function connectWithAppPassword(workspace: Workspace, body: AppPasswordConnect): AccountRecord {
  const identifier = readIdentifier(body.identifier);
  if (body.reconnectId !== undefined) {
    const account = getAccount(workspace, body.reconnectId);
    return reauthorizeWithAppPassword(workspace, account, identifier, body.appPassword, 'reconnectId');
  }
  const handle = handleOfIdentifier(identifier);
  const existing = allAccounts(workspace).find(
    (account) => account.platform === 'bluesky' && ((handle !== undefined && account.handle.toLowerCase() === handle) || (identifier.kind === 'did' && account.platformUserId === identifier.did)),
  );
  if (existing) {
    throw new ApiError(409, 'CONFLICT', `The decentralized network account ${existing.handle} is already connected as ${existing.id}; re-authorize it with reconnectId instead.`, {
      param: 'identifier',
      details: { accountId: existing.id },
    });
  }
  assertCanAddAccount(workspace);
  signInWithAppPassword(workspace, body.appPassword);
  return addAccount(workspace, blueskyIdentity(workspace, identifier), {
    ...(body.profileName !== undefined && { profileName: body.profileName }),
    ...(body.metadata !== undefined && { metadata: body.metadata }),
  });
}

/** `POST /v1/accounts/{id}/reconnect` on the decentralized network: at once, with a new app password. */
function reconnectWithAppPassword(workspace: Workspace, account: AccountRecord, body: { identifier?: string; appPassword?: string }): AccountRecord {
  if (body.appPassword === undefined) throw validationError('appPassword', 'appPassword is required to reconnect a decentralized network account.');
  const identifier = body.identifier !== undefined ? readIdentifier(body.identifier) : ({ kind: 'handle', handle: account.handle.toLowerCase() } as const);
  return reauthorizeWithAppPassword(workspace, account, identifier, body.appPassword, 'id');
}

function reauthorizeWithAppPassword(workspace: Workspace, account: AccountRecord, identifier: BlueskyIdentifier, appPassword: string, accountParam: string): AccountRecord {
  if (account.platform !== 'bluesky') {
    throw validationError(accountParam, `Account ${account.id} is a ${account.platform} account; only decentralized network (bluesky) accounts re-authorize with an app password.`);
  }
  if (!identifierNames(identifier, account)) {
    throw validationError('identifier', `The identifier names another account than ${account.handle}; a reconnect signs in again with the same account.`);
  }
  signInWithAppPassword(workspace, appPassword);
  return reactivateAccount(workspace, account);
}

// ---------------------------------------------------------------------------
// OAuth networks: sessions and the sign-in page's decision
// ---------------------------------------------------------------------------

export interface SignInRequest {
  platform: string;
  /** The account a reconnect re-authorizes; absent for a connect. */
  account?: AccountRecord;
  redirectUrl: string;
  profileName?: string;
  metadata?: Record<string, unknown>;
  headless?: boolean;
  loginMethod?: LoginMethod;
}

/**
 * Schemes no browser should be sent to after a sign-in: they run code or read local
 * files instead of opening a page or an app. Everything else absolute is allowed,
 * an app's deep link (`myapp://oauth/done`) included, as the reference asks only
 * for a URI (docs/decisions/0014-last-gaps-against-the-reference.md).
 */
export const UNSAFE_REDIRECT_SCHEMES = ['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'] as const;

/** Any absolute URI but the unsafe schemes above. */
export function checkRedirectUrl(redirectUrl: string): void {
  let protocol: string;
  try {
    // The URL parser lowercases the scheme, so `JavaScript:` is caught as well.
    protocol = new URL(redirectUrl).protocol;
  } catch {
    throw validationError('redirectUrl', 'redirectUrl must be an absolute URI (https://… or an app link such as myapp://…).');
  }
  if ((UNSAFE_REDIRECT_SCHEMES as readonly string[]).includes(protocol)) {
    throw validationError('redirectUrl', `redirectUrl must not use the ${protocol} scheme: a browser is sent there after the sign-in.`);
  }
}

/** What the sign-in page shows as "Returns to": the host of a web URL, the scheme and host of an app link. */
export function redirectTarget(redirectUrl: string): string {
  const url = new URL(redirectUrl);
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.host;
  return url.host ? `${url.protocol}//${url.host}` : url.protocol;
}

/**
 * Starts a sign-in: stores the session and answers the URL of the mock's sign-in
 * page on the host the request came to. A new account is checked against the
 * wallet now, so an integrator learns of a 402 before sending the owner off.
 */
export function startSignIn(workspace: Workspace, request: SignInRequest, baseUrl: string): OAuthRedirect {
  checkRedirectUrl(request.redirectUrl);
  if (!request.account) assertCanAddAccount(workspace);
  const store = connectSessionsStore.get(workspace);
  pruneSessions(workspace);
  const createdMs = workspace.now();
  const session: ConnectSessionRecord = {
    // The workspace id is in the session id: the sign-in page is opened by a browser that sends no API key.
    id: `os_${workspace.id}_${workspace.newCredential(20)}`,
    platform: request.platform,
    mode: request.account ? 'reconnect' : 'connect',
    accountId: request.account?.id ?? null,
    redirectUrl: request.redirectUrl,
    profileName: request.profileName ?? null,
    metadata: structuredClone(request.metadata ?? {}),
    headless: request.headless ?? false,
    loginMethod: request.loginMethod ?? null,
    state: 'pending',
    createdAt: new Date(createdMs).toISOString(),
    expiresAt: new Date(createdMs + SIGN_IN_LIFETIME_MS).toISOString(),
    finishedAt: null,
    tempToken: null,
    candidates: [],
    formToken: randomHex(32),
  };
  store.sessions[session.id] = session;
  workspace.changed();
  return { type: 'oauth', url: `${baseUrl}/__oauth/authorize?session=${encodeComponent(session.id)}`, expiresAt: session.expiresAt };
}

function pruneSessions(workspace: Workspace): void {
  const store = connectSessionsStore.get(workspace);
  const oldest = workspace.now() - SESSION_RETENTION_MS;
  for (const session of Object.values(store.sessions)) {
    if (Date.parse(session.createdAt) >= oldest) continue;
    if (session.tempToken) delete store.tempTokens[session.tempToken];
    delete store.sessions[session.id];
  }
}

/** The workspace id inside a session id, or undefined when the id has not the mock's shape. */
export function workspaceIdOfSession(sessionId: string): string | undefined {
  return /^os_(ws_[a-z0-9]+)_[0-9a-f]{20}$/.exec(sessionId)?.[1];
}

export function findSession(workspace: Workspace, sessionId: string): ConnectSessionRecord | undefined {
  return getOwn(connectSessionsStore.read(workspace).sessions, sessionId);
}

/** Something the sign-in page cannot do with this session; the page shows it with this HTTP status. */
export class SignInPageError extends Error {
  override name = 'SignInPageError';

  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

export type Decision = 'approve' | 'deny';

/** What the sign-in page's form carries back; a session saved before forms carried one gets it now. */
export function formTokenOf(workspace: Workspace, session: ConnectSessionRecord): string {
  if (session.formToken === undefined) {
    session.formToken = randomHex(32);
    workspace.changed();
  }
  return session.formToken;
}

/**
 * Refuses a decision posted without the form token of the session's own page (a form
 * on another site, a copy of the page): 403, and nothing changes.
 */
export function checkFormToken(session: ConnectSessionRecord, sent: unknown): void {
  if (typeof sent === 'string' && session.formToken !== undefined && sameCredential(sent, session.formToken)) return;
  throw new SignInPageError(403, 'Sign-in refused', 'This decision was not sent by the sign-in page itself (its form token is missing or wrong), so nothing was changed. Open the sign-in URL and choose Approve or Deny there.');
}

/**
 * The owner decided on the sign-in page: answers where the browser goes next, the
 * redirect URL with either the result (`connectSession`, `tempToken`, `accountId`)
 * or an `error`. A decision after `expiresAt` on the virtual clock is
 * `SESSION_EXPIRED` whatever was chosen.
 */
export function finishSignIn(workspace: Workspace, sessionId: string, decision: Decision): string {
  const session = findSession(workspace, sessionId);
  if (!session) throw new SignInPageError(404, 'Unknown sign-in', 'This sign-in link is not known: it may be from another run of the mock, or older than a day.');
  if (session.state !== 'pending') {
    throw new SignInPageError(409, 'Sign-in already finished', `This sign-in was already finished (${session.state}); start a new connect to sign in again.`);
  }
  const target = new URL(session.redirectUrl);
  target.searchParams.set('platform', session.platform);
  if (session.accountId !== null) target.searchParams.set('accountId', session.accountId);
  const fail = (state: ConnectSessionRecord['state'], error: string): string => {
    session.state = state;
    session.finishedAt = workspace.nowIso();
    target.searchParams.set('error', error);
    workspace.changed();
    return target.toString();
  };

  if (workspace.now() > Date.parse(session.expiresAt)) return fail('expired', 'SESSION_EXPIRED');
  if (decision === 'deny') return fail('denied', 'ACCESS_DENIED');
  if (activeOutage(workspace, session.platform)) return fail('failed', 'PLATFORM_ERROR');

  if (session.mode === 'reconnect') {
    const account = session.accountId !== null ? getOwn(accountsStore.read(workspace).accounts, session.accountId) : undefined;
    if (!account) return fail('failed', 'ACCOUNT_DISCONNECTED');
    reactivateAccount(workspace, account);
    session.candidates = [{
      id: account.platformUserId,
      platform: account.platform,
      displayName: account.displayName,
      handle: account.handle,
      username: account.platform === 'linkedin' ? null : account.handle,
      avatarUrl: account.avatarUrl,
      category: null,
      pageId: null,
      pageName: null,
      platformUserId: account.platformUserId,
      accountId: account.id,
    }];
    target.searchParams.set('connectSession', session.id);
  } else {
    // A plain connect takes the first candidate now; check the wallet before anything changes.
    const connectsNow = !session.headless && session.loginMethod !== 'facebook_login';
    if (connectsNow) {
      const refusal = addAccountRefusal(workspace);
      if (refusal) return fail('failed', refusal.code);
    }
    session.candidates = offerCandidates(workspace, session.platform, { headless: session.headless, loginMethod: session.loginMethod });
    const first = session.candidates[0];
    if (session.loginMethod === 'facebook_login') {
      session.tempToken = `tmp_${workspace.newCredential(24)}`;
      connectSessionsStore.get(workspace).tempTokens[session.tempToken] = session.id;
      target.searchParams.set('tempToken', session.tempToken);
    } else {
      if (connectsNow && first) {
        first.accountId = connectCandidateRecord(workspace, session, first).id;
        target.searchParams.set('accountId', first.accountId);
      }
      target.searchParams.set('connectSession', session.id);
    }
  }
  session.state = 'approved';
  session.finishedAt = workspace.nowIso();
  workspace.changed();
  return target.toString();
}

function connectCandidateRecord(workspace: Workspace, session: ConnectSessionRecord, candidate: CandidateRecord): AccountRecord {
  return addAccount(workspace, identityOfCandidate(candidate), {
    ...(session.profileName !== null && { profileName: session.profileName }),
    metadata: session.metadata,
  });
}

// ---------------------------------------------------------------------------
// After the sign-in: candidates, pending photo-sharing accounts, the choice
// ---------------------------------------------------------------------------

/** A signed-in session whose choice is still open; 404 otherwise, saying why. */
function openSession(workspace: Workspace, session: ConnectSessionRecord | undefined, what: string, value: string): ConnectSessionRecord {
  if (!session) throw notFound(what, value);
  if (session.state === 'pending') throw new ApiError(404, 'NOT_FOUND', `${what} '${value}' has not been signed in to yet: the owner must approve at the sign-in URL first.`);
  if (session.state !== 'approved') throw new ApiError(404, 'NOT_FOUND', `${what} '${value}' ended without a connection (${session.state}).`);
  const finishedMs = Date.parse(session.finishedAt ?? session.createdAt);
  if (workspace.now() > finishedMs + CHOICE_WINDOW_MS) throw new ApiError(404, 'NOT_FOUND', `${what} '${value}' expired an hour after its sign-in; connect again.`);
  return session;
}

export function candidatesOf(workspace: Workspace, sessionId: string): CandidateRecord[] {
  return openSession(workspace, findSession(workspace, sessionId), 'Connect session', sessionId).candidates;
}

export function pendingAccountsOf(workspace: Workspace, tempToken: string): CandidateRecord[] {
  const store = connectSessionsStore.read(workspace);
  const sessionId = getOwn(store.tempTokens, tempToken);
  return openSession(workspace, sessionId === undefined ? undefined : getOwn(store.sessions, sessionId), 'tempToken', tempToken).candidates;
}

export interface CandidateChoice {
  connectSession?: string;
  tempToken?: string;
  candidateId: string;
}

/** Connects one candidate of a signed-in session: a new account, billed. */
function connectCandidate(workspace: Workspace, platform: string, choice: CandidateChoice): AccountRecord {
  const store = connectSessionsStore.get(workspace);
  let session: ConnectSessionRecord;
  if (choice.tempToken !== undefined) {
    const sessionId = getOwn(store.tempTokens, choice.tempToken);
    session = openSession(workspace, sessionId === undefined ? undefined : getOwn(store.sessions, sessionId), 'tempToken', choice.tempToken);
  } else {
    const sessionId = choice.connectSession ?? '';
    session = openSession(workspace, getOwn(store.sessions, sessionId), 'Connect session', sessionId);
  }
  if (session.platform !== platform) {
    throw validationError('platform', `The session connects a ${session.platform} account, not ${platform}; use POST /v1/connections/${session.platform}/connect.`);
  }
  const candidate = session.candidates.find((item) => item.id === choice.candidateId);
  if (!candidate) {
    throw validationError('candidateId', `candidateId '${choice.candidateId}' was not offered in this session; offered: ${session.candidates.map((item) => item.id).join(', ')}.`);
  }
  if (candidate.accountId !== null && getOwn(accountsStore.read(workspace).accounts, candidate.accountId)) {
    throw new ApiError(409, 'CONFLICT', `Candidate '${candidate.id}' is already connected as account ${candidate.accountId}.`, {
      param: 'candidateId',
      details: { accountId: candidate.accountId },
    });
  }
  assertCanAddAccount(workspace);
  const account = connectCandidateRecord(workspace, session, candidate);
  candidate.accountId = account.id;
  workspace.changed();
  return account;
}

// ---------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------

export function candidateView(candidate: CandidateRecord): components['schemas']['ConnectCandidate'] {
  return {
    id: candidate.id,
    platform: candidate.platform,
    name: candidate.displayName,
    username: candidate.username,
    pictureUrl: candidate.avatarUrl,
    category: candidate.category,
    pageName: candidate.pageName,
  };
}

export function pendingAccountView(candidate: CandidateRecord): components['schemas']['PendingInstagramAccount'] {
  return {
    pageId: candidate.pageId ?? '',
    pageName: candidate.pageName ?? candidate.displayName,
    instagramAccountId: candidate.id,
    username: candidate.handle,
    name: candidate.displayName,
    profilePictureUrl: candidate.avatarUrl,
  };
}

/** What the sign-in page shows about a session. */
export function describeSession(workspace: Workspace, session: ConnectSessionRecord) {
  const account = session.accountId !== null ? getOwn(accountsStore.read(workspace).accounts, session.accountId) : undefined;
  const facts = platformFacts(session.platform);
  return {
    networkLabel: facts?.label ?? session.platform,
    platform: session.platform,
    mode: session.mode,
    account: account ? accountView(workspace, account) : undefined,
    profileName: session.profileName,
    headless: session.headless,
    loginMethod: session.loginMethod,
    redirectHost: redirectTarget(session.redirectUrl),
    expiresAt: session.expiresAt,
    expired: workspace.now() > Date.parse(session.expiresAt),
    state: session.state,
    inbox: facts !== undefined && facts.inboxTextLimit !== null,
  };
}
