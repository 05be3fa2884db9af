import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { WorkspaceRegistry } from '../../workspaces/registry.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { checkFormToken, describeSession, findSession, finishSignIn, formTokenOf, SignInPageError, workspaceIdOfSession, type Decision } from './connect.js';
import type { ConnectSessionRecord } from './store.js';
import { stampDate } from '../../http/date-header.js';
import { contentSecurityPolicy, setPageHeaders } from '../../http/page-policy.js';
import { escapeHtml } from '../../lib/html.js';

/*
 * The networks' sign-in pages, played by the mock: `/__oauth/authorize?session=…`
 * renders a plain HTML form (no JavaScript) with Approve and Deny, which posts to
 * `/__oauth/decide` with the session's form token; `&auto=approve|deny` skips the page
 * for tests. Either way the browser is sent (303) to the integrator's redirect URL with
 * the result. Neither way can be taken from a page of another site (decision 0025).
 *
 * These are pages for a person in a browser, not API operations: a bad link gets an
 * HTML page with a 4xx status saying what is wrong, never JSON or a stack trace.
 */

const DECISIONS: readonly Decision[] = ['approve', 'deny'];

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; background: #f3f4f6; color: #111827; margin: 0; }
  main { max-width: 28rem; margin: 3rem auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 1px 4px rgb(0 0 0 / 0.12); }
  .mock { font-size: 0.8rem; color: #6b7280; margin-top: 0; }
  h1 { font-size: 1.4rem; margin: 0.25rem 0 1rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 0.25rem 1rem; font-size: 0.9rem; }
  dt { color: #6b7280; }
  dd { margin: 0; }
  .warning { background: #fef3c7; padding: 0.5rem 0.75rem; border-radius: 6px; }
  .actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
  button { font: inherit; padding: 0.6rem 1.4rem; border-radius: 8px; border: 1px solid #d1d5db; background: #fff; cursor: pointer; }
  button[value=approve] { background: #2563eb; border-color: #2563eb; color: #fff; }
</style>
</head>
<body>
<main>
<p class="mock">social-gateway-mock: a simulated sign-in page. No real network is contacted.</p>
${body}
</main>
</body>
</html>
`;
}

/** A plain form: no script at all, its one style sheet inline. */
const SIGN_IN_POLICY = contentSecurityPolicy({ 'default-src': ["'none'"], 'style-src': ["'unsafe-inline'"] });

function send(res: Response, status: number, html: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // No form-action: browsers apply it to the redirect after the form, which goes to the integrator's host.
  setPageHeaders(res, SIGN_IN_POLICY);
  // The session's URL never leaves for the integrator's host; same-origin (not no-referrer, which
  // makes the form's POST say `Origin: null`) lets the cross-origin write check see the page's own origin.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.send(html);
}

function errorPage(res: Response, error: SignInPageError): void {
  send(res, error.status, layout(error.title, `<h1>${escapeHtml(error.title)}</h1>\n<p>${escapeHtml(error.message)}</p>`));
}

function permissionsOf(view: ReturnType<typeof describeSession>): string[] {
  const permissions = ['See your profile and its public information', 'Publish posts on your behalf', 'Read comments and reply to them', 'Read your insights and stats'];
  if (view.platform === 'facebook') permissions.unshift('Manage the Pages you choose');
  if (view.inbox) permissions.push('Read and send direct messages');
  return permissions;
}

function signInPage(workspace: Workspace, session: ConnectSessionRecord): string {
  const view = describeSession(workspace, session);
  const label = escapeHtml(view.networkLabel);
  const what = view.account
    ? `reconnect <strong>${escapeHtml(view.account.displayName)}</strong> (${escapeHtml(view.account.handle)})`
    : view.loginMethod === 'facebook_login'
      ? 'connect professional accounts linked to your pages (signing in with the page-based network)'
      : view.headless
        ? 'see the pages and accounts you can connect'
        : 'connect your account';
  const rows: Array<[string, string]> = [
    ['Network', `${label} (${escapeHtml(view.platform)})`],
    // A reconnect keeps the account where it is filed; a connect files it under the profile asked for.
    ['Profile', escapeHtml(view.account ? (view.account.profile ?? 'none') : (view.profileName ?? 'the workspace default'))],
    ['Returns to', escapeHtml(view.redirectHost)],
    ['Expires at', `${escapeHtml(view.expiresAt)} (virtual time)`],
  ];
  return layout(
    `Sign in to ${view.networkLabel}`,
    `<h1>Sign in to ${label}</h1>
<p><strong>Social Publishing Gateway</strong> wants to ${what}. It will be able to:</p>
<ul>
${permissionsOf(view).map((permission) => `  <li>${escapeHtml(permission)}</li>`).join('\n')}
</ul>
<dl>
${rows.map(([term, value]) => `  <dt>${term}</dt><dd>${value}</dd>`).join('\n')}
</dl>
${view.expired ? '<p class="warning">This sign-in has expired: finishing it returns to the app with error=SESSION_EXPIRED.</p>' : ''}
<form method="post" action="/__oauth/decide">
  <input type="hidden" name="session" value="${escapeHtml(session.id)}">
  <input type="hidden" name="token" value="${escapeHtml(formTokenOf(workspace, session))}">
  <div class="actions">
    <button type="submit" name="decision" value="approve">Approve</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </div>
</form>`,
  );
}

/** The workspace and session a link names: the workspace id is part of the session id. */
function locate(registry: WorkspaceRegistry, value: unknown): { workspace: Workspace; session: ConnectSessionRecord } {
  if (typeof value !== 'string' || value === '') throw new SignInPageError(400, 'Incomplete sign-in link', 'The sign-in link has no session: open the url the connect or reconnect answered, unchanged.');
  const workspaceId = workspaceIdOfSession(value);
  const workspace = workspaceId === undefined ? undefined : registry.get(workspaceId);
  const session = workspace ? findSession(workspace, value) : undefined;
  if (!workspace || !session) throw new SignInPageError(404, 'Unknown sign-in', 'This sign-in link is not known: it may be from another run of the mock, from a workspace that was reset, or older than a day.');
  return { workspace, session };
}

/** What `Sec-Fetch-Site` may say of a request that decides: the page itself, or no page at all. */
const DECIDING_SITES = new Set(['same-origin', 'none']);

/**
 * Browsers say where a request comes from in `Sec-Fetch-Site`. A sign-in is decided only by
 * its own page (`same-origin`) or by a request no page made (`none`: an address typed, a test's
 * browser opening the URL; no header: a client that is not a browser). A link, redirect or form
 * of another site, or of another port of this host (`same-site`), is refused before anything is
 * looked up, so such a page learns nothing and changes nothing.
 */
function refuseOtherSites(req: Request, how: string): void {
  const site = req.headers['sec-fetch-site'];
  if (site === undefined || (typeof site === 'string' && DECIDING_SITES.has(site))) return;
  throw new SignInPageError(403, 'Sign-in refused', `${how} came from another page than the sign-in page (Sec-Fetch-Site: ${String(site)}), so nothing was changed: a sign-in is decided on its own page. Open the sign-in URL and choose Approve or Deny there.`);
}

function readDecision(value: unknown, name: string): Decision {
  if (typeof value === 'string' && (DECISIONS as readonly string[]).includes(value)) return value as Decision;
  throw new SignInPageError(400, 'Unclear decision', `${name} must be approve or deny.`);
}

function decide(res: Response, workspace: Workspace, sessionId: string, decision: Decision): void {
  const location = finishSignIn(workspace, sessionId, decision);
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, location);
}

/** The /__oauth router, mounted by the server beside /docs. */
export function oauthPages(registry: WorkspaceRegistry): Router {
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }));

  router.get('/authorize', (req: Request, res: Response) => {
    if (req.query.auto !== undefined) refuseOtherSites(req, 'A link with auto= (for tests that call the URL themselves)');
    const { workspace, session } = locate(registry, req.query.session);
    // The page's Date header comes from this workspace's clock (an error's too, through the responder).
    req.ctx.workspace = workspace;
    stampDate(res, workspace);
    if (req.query.auto !== undefined) return decide(res, workspace, session.id, readDecision(req.query.auto, 'auto'));
    if (session.state !== 'pending') {
      throw new SignInPageError(409, 'Sign-in already finished', `This sign-in was already finished (${session.state}); start a new connect to sign in again.`);
    }
    send(res, 200, signInPage(workspace, session));
  });

  router.post('/decide', (req: Request, res: Response) => {
    refuseOtherSites(req, 'This decision');
    const form = (req.body ?? {}) as Record<string, unknown>;
    const { workspace, session } = locate(registry, form.session);
    req.ctx.workspace = workspace;
    stampDate(res, workspace);
    checkFormToken(session, form.token);
    decide(res, workspace, session.id, readDecision(form.decision, 'decision'));
  });

  router.use(() => {
    throw new SignInPageError(404, 'Not found', 'The sign-in pages are /__oauth/authorize?session=… and the form it posts to.');
  });

  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (error instanceof SignInPageError) return errorPage(res, error);
    const status = (error as { status?: number }).status;
    if (status === 413) return errorPage(res, new SignInPageError(413, 'Form too large', 'The sign-in form sent more than the page accepts.'));
    if (status !== undefined && status >= 400 && status < 500) return errorPage(res, new SignInPageError(400, 'Bad request', 'The sign-in form could not be read.'));
    console.error('social-gateway-mock: sign-in page failed', error);
    errorPage(res, new SignInPageError(500, 'Sign-in failed', 'The mock hit an unexpected error; this is a bug in social-gateway-mock.'));
  });
  return router;
}
