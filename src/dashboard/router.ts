import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Router } from 'express';
import { contentSecurityPolicy, inlineHash, SELF_SERVED_APP, setPageHeaders } from '../http/page-policy.js';
import { packagePath } from '../lib/package-root.js';

/*
 * The dashboard (issue 20, docs/decisions/0021-dashboard.md): a page, Preact's own ESM files,
 * and the dashboard's code, all served from the package. The page talks to the server
 * through /__control only, like any other client: this router serves files and nothing else,
 * so it needs no control token (the page asks for one when a control call answers 401).
 */

const require = createRequire(import.meta.url);

/** Preact's files the page loads, by the name it is served under, and their place in the preact package. */
export const DASHBOARD_VENDOR_FILES = {
  'preact.mjs': 'dist/preact.mjs',
  'hooks.mjs': 'hooks/dist/hooks.mjs',
  'jsx-runtime.mjs': 'jsx-runtime/dist/jsxRuntime.mjs',
  LICENSE: 'LICENSE',
} as const;
export type DashboardVendorFile = keyof typeof DASHBOARD_VENDOR_FILES;

/** Where `npm run build` (scripts/build.ts) puts them and where it compiles the dashboard's code. */
export const BUILT_DASHBOARD_VENDOR = packagePath('dist', 'dashboard', 'vendor');
export const BUILT_DASHBOARD_UI = packagePath('dist', 'dashboard', 'code', 'dashboard', 'ui');
const SOURCE_DASHBOARD_UI = packagePath('src', 'dashboard', 'ui');

/** The bare names the dashboard's modules import, mapped to the files above (no bundler: an import map). */
const IMPORT_MAP = {
  imports: {
    preact: '/__dashboard/vendor/preact.mjs',
    'preact/hooks': '/__dashboard/vendor/hooks.mjs',
    'preact/jsx-runtime': '/__dashboard/vendor/jsx-runtime.mjs',
  },
};

/** Without the comment a browser's developer tools ask for a map that is not shipped, and log a 404. */
export function withoutSourceMapComment(text: string): string {
  return text.replace(/\/[*/]# sourceMappingURL=[^\s*]+(?:\s*\*\/)?\s*$/, '');
}

/** The folder of the preact package, where a source checkout (its dev dependency) has it. */
export function installedPreact(): string | null {
  try {
    return dirname(require.resolve('preact/package.json'));
  } catch {
    return null;
  }
}

const STYLE = `
:root { color-scheme: light; font: 14px/1.4 system-ui, sans-serif; --line: #8884; --accent: #2457c5; }
body { margin: 0; }
#app { display: grid; grid-template: auto 1fr / 11rem 1fr; height: 100vh; }
header { grid-column: 1 / 3; display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header h1 { font-size: 1rem; margin: 0 1rem 0 0; }
nav ul { list-style: none; margin: 0; padding: .5rem; }
nav a { display: block; padding: .35rem .6rem; border-radius: 4px; color: inherit; text-decoration: none; }
nav a[aria-current="page"] { background: var(--accent); color: #fff; }
main { overflow: hidden; display: flex; flex-direction: column; padding: 0 1rem; min-height: 0; }
main h2 { margin: .6rem 0; }
button, select, input { font: inherit; }
.row { display: grid; grid-template-columns: 8.5rem 4.5rem minmax(8rem, 1fr) 4rem 11rem 8rem 5.5rem; gap: .5rem; align-items: center; padding: 0 .4rem; white-space: nowrap; }
.row > span { overflow: hidden; text-overflow: ellipsis; }
.journal { flex: 1; overflow-y: auto; border: 1px solid var(--line); min-height: 8rem; position: relative; }
.journal [role="row"] { cursor: pointer; }
.journal [aria-selected="true"] { background: var(--accent); color: #fff; }
.journal [aria-selected="true"] span { color: inherit; }
.filters { display: flex; gap: .75rem; flex-wrap: wrap; align-items: end; margin-bottom: .5rem; }
.filters label { display: flex; flex-direction: column; font-size: .85em; }
.detail { border-top: 1px solid var(--line); max-height: 40%; overflow: auto; padding: .5rem 0; }
.detail dl { display: grid; grid-template-columns: 9rem 1fr; gap: .2rem .75rem; margin: .5rem 0; }
.detail dd { margin: 0; overflow-wrap: anywhere; }
.detail h4 { margin: .75rem 0 .25rem; }
.detail pre { background: #8881; padding: .4rem; overflow: auto; max-height: 16rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.status-2 { color: #116329; } .status-4 { color: #8a4600; } .status-5, .status-0 { color: #b71c1c; }
.workspace { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.notice { padding: .25rem .5rem; border: 1px solid var(--line); border-radius: 4px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

const IMPORT_MAP_TEXT = JSON.stringify(IMPORT_MAP);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Dashboard · social-gateway-mock</title>
  <link rel="icon" href="data:,">
  <style>${STYLE}</style>
  <script type="importmap">${IMPORT_MAP_TEXT}</script>
  <script type="module" src="/__dashboard/ui/main.js"></script>
</head>
<body>
  <div id="app"></div>
  <noscript>The dashboard needs JavaScript. Everything it shows is also behind <a href="/__control/health">/__control</a> (see <a href="/control.yaml">control.yaml</a>).</noscript>
</body>
</html>`;

/**
 * Scripts from the server only, the import map by its hash (a bundler-free page needs it inline).
 * Styles may be inline: several views render their own `<style>`, and a style runs no code.
 * Requests go to the server's own /__control only.
 */
export const DASHBOARD_POLICY = contentSecurityPolicy({
  ...SELF_SERVED_APP,
  'script-src': ["'self'", inlineHash(IMPORT_MAP_TEXT)],
});

/** A module of the dashboard's code: `main.js`, `requests-view.js`, … (no folders, no dots but the extension). */
export const UI_MODULE = /^[a-z][a-z0-9-]*\.js$/;

/**
 * Compiles a dashboard module from its TypeScript when running from source (tsx, vitest):
 * TypeScript is a dev dependency there, and `npm run build` compiles the same files with
 * src/dashboard/ui/tsconfig.json for the package. Kept per file until the file changes.
 */
const compiled = new Map<string, { mtimeMs: number; code: string }>();
async function compileFromSource(file: string): Promise<string | null> {
  const base = file.slice(0, -'.js'.length);
  const source = [`${base}.tsx`, `${base}.ts`].map((name) => join(SOURCE_DASHBOARD_UI, name)).find((path) => existsSync(path));
  if (!source) return null;
  const mtimeMs = statSync(source).mtimeMs;
  const cached = compiled.get(source);
  if (cached?.mtimeMs === mtimeMs) return cached.code;
  const ts = (await import('typescript')).default;
  const options = ts.getParsedCommandLineOfConfigFile(join(SOURCE_DASHBOARD_UI, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })?.options ?? {};
  const code = ts.transpileModule(readFileSync(source, 'utf8'), { compilerOptions: { ...options, sourceMap: false, inlineSourceMap: false, declaration: false }, fileName: source }).outputText;
  compiled.set(source, { mtimeMs, code });
  return code;
}

/** Running from the TypeScript sources (tsx, vitest) rather than the build. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/**
 * `/__dashboard`: the page, Preact (the built copy, else the dev dependency) and the
 * dashboard's modules (built, or compiled from source when running from source, so a test
 * never drives a stale build).
 */
export function dashboardRouter(): Router {
  const router = express.Router({ strict: false });
  const vendorDir = existsSync(join(BUILT_DASHBOARD_VENDOR, 'preact.mjs')) ? BUILT_DASHBOARD_VENDOR : null;
  const preactDir = vendorDir ? null : installedPreact();

  router.get('/', (_req, res) => {
    setPageHeaders(res, DASHBOARD_POLICY);
    res.type('html').set('Cache-Control', 'no-cache').send(PAGE);
  });
  router.get('/vendor/:file', (req, res, next) => {
    const file = req.params.file;
    if (!Object.hasOwn(DASHBOARD_VENDOR_FILES, file) || (!vendorDir && !preactDir)) return next();
    const name = file as DashboardVendorFile;
    res.type(name === 'LICENSE' ? 'text/plain; charset=utf-8' : 'text/javascript; charset=utf-8');
    if (vendorDir) return res.sendFile(join(vendorDir, name), { dotfiles: 'deny' });
    res.send(withoutSourceMapComment(readFileSync(join(preactDir as string, DASHBOARD_VENDOR_FILES[name]), 'utf8')));
  });
  router.get('/ui/:file', async (req, res, next) => {
    const file = req.params.file;
    if (!UI_MODULE.test(file)) return next();
    const built = join(BUILT_DASHBOARD_UI, file);
    const code = FROM_SOURCE ? await compileFromSource(file) : null;
    if (FROM_SOURCE ? code === null : !existsSync(built)) return next();
    // Asked again on each load: a rebuilt or edited module is never served stale.
    res.type('text/javascript; charset=utf-8').set('Cache-Control', 'no-cache');
    if (code !== null) res.send(code);
    else res.sendFile(built);
  });
  return router;
}
