import { loadSpec, type OpenApiDocument } from '../../src/http/spec.js';
import { operationModels, type OperationModel } from '../fuzz/operations.js';

/*
 * One walk that answers 2xx on every operation of openapi.yaml, in an order where each
 * call finds what it needs (a scheduled post to cancel, a delivery to redeliver, deletes
 * last), then a handful of declared errors. Request bodies are the contract's own
 * examples (every example of a body that has several), with the ids they name replaced
 * by records of the workspace: so the walk also proves each example is accepted by the
 * mock. Used in-process by examples.test.ts and through Prism's validation proxy by
 * prism-proxy.test.ts; it speaks plain HTTP (fetch) so it works against either.
 */

export interface Exchange {
  operationId: string;
  method: string;
  path: string;
  /** The example the body came from (`schema` for the body schema's own example). */
  example?: string;
  /** The status the walk expects. */
  expected: number | '2xx';
  status: number;
  body: unknown;
  headers: Headers;
}

export interface WalkOptions {
  /** Where /v1 calls go: the mock, or a proxy in front of it. */
  apiUrl: string;
  /** The mock itself, for what is not an operation of openapi.yaml (the networks' sign-in pages, the control plane). */
  mockUrl: string;
  apiKey: string;
  /** A receiver that answers 2xx, for the webhook the walk creates (the example's URL is not reachable). */
  hookUrl: string;
  /** Changes every body example before it is sent (a walk on a clock past the examples' dates moves them). */
  adaptExample?: (operationId: string, value: unknown) => unknown;
}

type Json = Record<string, unknown>;
interface Row {
  id: string;
  platform: string;
  status: string;
}
interface PostRow {
  id: string;
  status: string;
  destinations: Row[];
}

const document: OpenApiDocument = loadSpec('openapi.yaml').document;
export const OPERATIONS: OperationModel[] = operationModels(document, 'api');

function resolve(node: unknown): Json {
  let current = node as Json;
  while (typeof current.$ref === 'string') {
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) as Json;
  }
  return current;
}

/** The request-body examples of an operation: the media type's `examples`/`example`, else the body schema's `example`. */
export function bodyExamples(operationId: string): Array<{ name: string; value: unknown }> {
  const op = OPERATIONS.find((candidate) => candidate.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  const operation = document.paths[op.path]?.[op.method.toLowerCase()] as Json;
  if (!operation.requestBody) return [];
  const media = (resolve(operation.requestBody).content as Record<string, Json>)['application/json'] ?? {};
  if (media.examples) return Object.entries(media.examples as Record<string, Json>).map(([name, example]) => ({ name, value: resolve(example).value }));
  if (media.example !== undefined) return [{ name: 'example', value: media.example }];
  const schema = resolve(media.schema ?? {});
  return schema.example === undefined ? [] : [{ name: 'schema', value: schema.example }];
}

/** A copy of `value` with each field named in `fields` set to the given value, at any depth. */
function withFields(value: unknown, fields: Json): unknown {
  if (Array.isArray(value)) return value.map((item) => withFields(item, fields));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Json = {};
  for (const [key, inner] of Object.entries(value)) copy[key] = key in fields ? fields[key] : withFields(inner, fields);
  return copy;
}

export async function walkEveryOperation(options: WalkOptions): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const headers = { 'x-api-key': options.apiKey, 'content-type': 'application/json' };

  async function call(operationId: string, path: string, body?: unknown, expected: number | '2xx' = '2xx', example?: string): Promise<Exchange> {
    const op = OPERATIONS.find((candidate) => candidate.operationId === operationId);
    if (!op) throw new Error(`no operation ${operationId}`);
    const res = await fetch(`${options.apiUrl}${path}`, { method: op.method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: kept as text for the report.
    }
    const exchange: Exchange = { operationId, method: op.method, path, expected, status: res.status, body: parsed, headers: res.headers, ...(example !== undefined && { example }) };
    exchanges.push(exchange);
    const ok = expected === '2xx' ? res.status >= 200 && res.status < 300 : res.status === expected;
    if (!ok) throw new Error(`${operationId}${example ? ` (example ${example})` : ''} ${op.method} ${path}: expected ${expected}, got ${res.status} ${text}`);
    return exchange;
  }

  /** Sends every body example of the operation, each changed by `adapt`; answers the last exchange. */
  async function examples(operationId: string, path: string, adapt: (value: unknown, name: string) => unknown = (value) => value): Promise<Exchange> {
    const found = bodyExamples(operationId);
    if (found.length === 0) throw new Error(`${operationId} has no body example`);
    let last: Exchange | undefined;
    const adaptExample = options.adaptExample ?? ((_operationId: string, value: unknown) => value);
    for (const { name, value } of found) last = await call(operationId, path, adapt(adaptExample(operationId, value), name), '2xx', name);
    return last as Exchange;
  }

  /** The networks' sign-in page (not an operation): approve, and answer the redirect's query. */
  async function approve(url: string): Promise<URLSearchParams> {
    const signIn = new URL(url);
    const res = await fetch(`${options.mockUrl}${signIn.pathname}${signIn.search}&auto=approve`, { redirect: 'manual' });
    if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
    return new URL(res.headers.get('location') as string).searchParams;
  }

  const body = (exchange: Exchange) => exchange.body as Json;

  // ---- what the fixture world holds
  const accounts = body(await call('listAccounts', '/v1/accounts?limit=100')).data as Row[];
  const account = (platform: string) => {
    const found = accounts.find((row) => row.platform === platform && row.status === 'active');
    if (!found) throw new Error(`no active ${platform} account`);
    return found.id;
  };
  const posts = body(await call('listPosts', '/v1/posts?limit=100')).data as PostRow[];
  const publishedOn = (platform: string) => {
    for (const post of posts) {
      if (post.status !== 'published' || post.destinations.length !== 1) continue;
      const destination = post.destinations.find((row) => row.platform === platform && row.status === 'published');
      if (destination) return { post: post.id, destination: destination.id };
    }
    throw new Error(`no published ${platform} post`);
  };
  const scheduled = posts.find((post) => post.status === 'scheduled');
  if (!scheduled) throw new Error('no scheduled post');

  // ---- connections
  await call('listConnections', '/v1/connections');
  await examples('createProfile', '/v1/profiles');
  const connectPlatform: Record<string, string> = { appPassword: 'bluesky', oauth: 'instagram', chooseCandidate: 'facebook' };
  // A headless facebook connect, approved, leaves a session whose candidates the example chooses from.
  const headless = body(await call('connectAccount', '/v1/connections/facebook/connect', { redirectUrl: 'https://app.example-client.com/integrations/callback', headless: true }));
  const session = (await approve(headless.url as string)).get('connectSession') as string;
  const candidates = body(await call('listConnectCandidates', `/v1/connect-sessions/${session}/candidates`)).data as Array<{ id: string }>;
  for (const { name, value } of bodyExamples('connectAccount')) {
    const platform = connectPlatform[name];
    if (!platform) throw new Error(`connectAccount example ${name}: which network does it illustrate?`);
    const adapted = name === 'chooseCandidate' ? withFields(value, { connectSession: session, candidateId: candidates[0]?.id }) : value;
    await call('connectAccount', `/v1/connections/${platform}/connect`, adapted, '2xx', name);
  }
  const instagramLogin = body(await call('connectAccount', '/v1/connections/instagram/connect', { redirectUrl: 'https://app.example-client.com/integrations/callback', loginMethod: 'facebook_login' }));
  const tempToken = (await approve(instagramLogin.url as string)).get('tempToken') as string;
  await call('listPendingInstagramAccounts', `/v1/connections/oauth/instagram/accounts?tempToken=${tempToken}`);
  await call('getConnectionStats', `/v1/connections/${account('instagram')}/stats`);
  await call('listConnectionMedia', `/v1/connections/${account('instagram')}/media`);
  await call('getCreatorInfo', `/v1/connections/${account('tiktok')}/tiktok/creator-info`);
  await call('listPinBoards', `/v1/connections/${account('pinterest')}/pinterest/boards`);
  await examples('updateBlueskySettings', `/v1/connections/${account('bluesky')}/bluesky/settings`);

  // ---- accounts
  await call('getAccount', `/v1/accounts/${account('instagram')}`);
  await examples('reconnectAccount', `/v1/accounts/${account('instagram')}/reconnect`);
  await call('getAccountAnalytics', `/v1/accounts/${account('instagram')}/analytics`);
  await examples('syncAccount', `/v1/accounts/${account('instagram')}/sync`);
  await call('listReviews', `/v1/accounts/${account('facebook')}/reviews`);

  // ---- profiles and media
  const profiles = body(await call('listProfiles', '/v1/profiles')).data as Array<{ id: string; name: string; isDefault?: boolean }>;
  await examples('presignMedia', '/v1/media/presign');
  await call('listMedia', '/v1/media');

  // ---- posts and analytics
  const instagram = publishedOn('instagram');
  await examples('createPost', '/v1/posts', (value) => {
    const destinations = [account('instagram'), account('facebook')];
    return { ...(value as Json), destinations: ((value as Json).destinations as Json[]).map((destination, i) => ({ ...destination, connectionId: destinations[i % 2] })) };
  });
  await call('getPost', `/v1/posts/${instagram.post}`);
  await call('getPostAnalyticsTimeline', `/v1/posts/${instagram.post}/analytics/timeline`);
  await call('getAnalytics', '/v1/analytics');
  await call('getAnalyticsTimeline', '/v1/analytics/timeline');
  await call('cancelPost', `/v1/posts/${scheduled.id}/cancel`);

  // ---- comments
  /** A published destination on the network that has comments, and its comments. */
  async function commented(platform: string): Promise<{ destination: string; comments: Array<{ id: string; platformCommentId: string }> }> {
    for (const post of posts) {
      for (const destination of post.destinations) {
        if (destination.platform !== platform || destination.status !== 'published') continue;
        const comments = body(await call('listComments', `/v1/comments?destinationId=${destination.id}`)).data as Array<{ id: string; platformCommentId: string }>;
        if (comments.length > 0) return { destination: destination.id, comments };
      }
    }
    throw new Error(`no commented ${platform} destination`);
  }
  const onInstagram = await commented('instagram');
  const firstComment = onInstagram.comments[0] as { id: string; platformCommentId: string };
  await examples('createComment', '/v1/comments', (value) => withFields(value, { destinationId: onInstagram.destination, parentCommentId: firstComment.platformCommentId }));
  await examples('replyToComment', `/v1/comments/${firstComment.id}/replies`);
  const onFacebook = await commented('facebook');
  await examples('likeComment', '/v1/comments/like', (value) => withFields(value, { destinationId: onFacebook.destination, commentId: onFacebook.comments[0]?.platformCommentId }));

  // ---- engagement (the microblogging network)
  const twitter = publishedOn('twitter');
  for (const operationId of ['likePost', 'unlikePost', 'repost', 'undoRepost', 'bookmarkPost', 'removeBookmark', 'quotePost']) {
    const op = OPERATIONS.find((candidate) => candidate.operationId === operationId) as OperationModel;
    await examples(operationId, op.path, (value) => withFields(value, { destinationId: twitter.destination }));
  }

  // ---- inbox
  const conversations = body(await call('listConversations', `/v1/inbox/conversations?accountId=${account('instagram')}`)).convos as Array<{ id: string }>;
  await examples('createConversation', `/v1/accounts/${account('instagram')}/conversations`);
  const conversation = conversations[0];
  if (!conversation) throw new Error('no instagram conversation');
  await examples('sendMessage', `/v1/accounts/${account('instagram')}/conversations/${conversation.id}/messages`);

  // ---- webhooks
  await call('listWebhooks', '/v1/webhooks');
  const hook = body(await examples('createWebhook', '/v1/webhooks', (value) => withFields(value, { url: options.hookUrl }))).id as string;
  await call('getWebhook', `/v1/webhooks/${hook}`);
  await call('testWebhook', `/v1/webhooks/${hook}/test`);
  const deliveries = body(await call('listWebhookDeliveries', `/v1/webhooks/${hook}/deliveries`)).data as Array<{ id: string }>;
  await call('redeliverWebhookDelivery', `/v1/webhooks/${hook}/deliveries/${deliveries[0]?.id}/redeliver`);
  await examples('updateWebhook', `/v1/webhooks/${hook}`);

  // ---- automations
  await call('listAutomations', '/v1/automations');
  const automation = body(await examples('createAutomation', '/v1/automations', (value) => withFields(value, { accountId: account('instagram') }))).id as string;
  await call('getAutomation', `/v1/automations/${automation}`);
  await examples('updateAutomation', `/v1/automations/${automation}`);

  // ---- deletes, last
  await call('deleteAutomation', `/v1/automations/${automation}`);
  await call('deleteWebhook', `/v1/webhooks/${hook}`);
  await call('deletePost', `/v1/posts/${twitter.post}`);
  const studio = profiles.find((profile) => profile.name === 'Studio North');
  if (!studio) throw new Error('the createProfile example made no profile');
  await call('deleteProfile', `/v1/profiles/${studio.id}`);
  const unused = accounts.find((row) => !['instagram', 'facebook', 'twitter', 'bluesky', 'tiktok', 'pinterest'].includes(row.platform));
  if (!unused) throw new Error('no account the walk leaves alone');
  await call('disconnectAccount', `/v1/accounts/${unused.id}`);

  // ---- a selection of declared errors, each valid by the contract's request schemas
  const missing = '0f8e7d6c-5b4a-4392-8a1b-2c3d4e5f6a7b';
  await call('getPost', `/v1/posts/${missing}`, undefined, 404);
  await call('cancelPost', `/v1/posts/${instagram.post}/cancel`, undefined, 409);
  await call('getCreatorInfo', `/v1/connections/${account('instagram')}/tiktok/creator-info`, undefined, 400);
  await call('getAutomation', `/v1/automations/${automation}`, undefined, 404);
  return exchanges;
}

/** Operations of openapi.yaml the exchanges answered with a 2xx. */
export function answered2xx(exchanges: Exchange[]): Set<string> {
  return new Set(exchanges.filter((exchange) => exchange.status >= 200 && exchange.status < 300).map((exchange) => exchange.operationId));
}
