import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Router } from 'express';
import { contentSecurityPolicy, SELF_SERVED_APP, setPageHeaders } from '../http/page-policy.js';
import { packagePath } from '../lib/package-root.js';

const require = createRequire(import.meta.url);

/**
 * The files of Swagger UI the page loads. The standalone preset is the top bar with the
 * definition picker: without it Swagger UI loads none of the `urls` it is given.
 */
export const DOCS_ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css'] as const;
/** Swagger UI's licence texts, shipped beside the files they cover (Apache-2.0 asks for LICENSE and NOTICE). */
export const DOCS_LICENSE_FILES = ['LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt', 'swagger-ui-standalone-preset.js.LICENSE.txt'] as const;
/**
 * Where `npm run build` copies them (scripts/build.ts). swagger-ui-dist is a dev
 * dependency only: it depends on an analytics package whose install script phones home, and
 * nothing an integrator installs may do that (docs/decisions/0010-packaging.md).
 */
export const BUILT_DOCS_ASSETS = packagePath('dist', 'docs-assets');

const SERVED_FILES: ReadonlySet<string> = new Set([...DOCS_ASSET_FILES, ...DOCS_LICENSE_FILES]);

function holdsAssets(dir: string): boolean {
  return DOCS_ASSET_FILES.every((file) => existsSync(join(dir, file)));
}

/**
 * The folder to serve Swagger UI from: the built copy, else the dev dependency (running from
 * source under tsx or vitest, before any build), else null when neither is there.
 */
export function findDocsAssets(): string | null {
  if (holdsAssets(BUILT_DOCS_ASSETS)) return BUILT_DOCS_ASSETS;
  try {
    // Only the folder is needed: requiring the package itself evaluates its 1.5 MB browser
    // bundle, which was about a tenth of the mock's start-up (docs/performance.md).
    const installed = dirname(require.resolve('swagger-ui-dist/package.json'));
    if (holdsAssets(installed)) return installed;
  } catch {
    // Not installed: a source checkout installed with --omit=dev. The page below says so.
  }
  return null;
}

const TITLE = 'Social Publishing Gateway API (social-gateway-mock)';

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${TITLE}</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// Answered instead of a 500 or a blank page, so whoever opens /docs learns why and still
// reaches the contracts the page would have rendered.
const pageWithoutAssets = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${TITLE}</title>
</head>
<body>
  <h1>${TITLE}</h1>
  <p>The reference page needs Swagger UI's files, and this copy of social-gateway-mock has none:
  it runs from source without <code>npm run build</code> and without its dev dependencies.
  Run <code>npm install</code> (or <code>npm run build</code>) and restart it.</p>
  <p>The contracts themselves: <a href="/openapi.yaml">/openapi.yaml</a> (the API) and
  <a href="/control.yaml">/control.yaml</a> (the control plane).</p>
</body>
</html>`;

/** The names the definition picker shows; `/docs?urls.primaryName=Control%20plane` opens on the second. */
const DOCS_DEFINITIONS = [
  { url: '/openapi.yaml', name: 'API' },
  { url: '/control.yaml', name: 'Control plane' },
] as const;

/*
 * Swagger UI fetches a definition of `urls` only from the top bar of its StandaloneLayout (its
 * core loads `url` alone), so the layout and the preset that holds the top bar go together.
 *
 * The contracts name the default address (127.0.0.1:4010); Try it out must call the mock that
 * served this page, wherever it listens, or the policy's connect-src refuses the call. So each
 * definition's `servers` becomes the page's own origin as it is loaded; the files stay as written.
 *
 * validatorUrl null: the badge of swagger.io's validator is an image from another site, which the
 * policy refuses, and the contracts are linted at build time.
 */
const init = `const thisServer = () => ({
  statePlugins: {
    spec: {
      wrapActions: {
        updateJsonSpec: (update) => (spec) => update({ ...spec, servers: [{ url: window.location.origin, description: 'this mock' }] }),
      },
    },
  },
});
window.ui = SwaggerUIBundle({
  urls: ${JSON.stringify(DOCS_DEFINITIONS)},
  dom_id: '#docs',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [thisServer],
  layout: 'StandaloneLayout',
  validatorUrl: null,
});
`;

/**
 * Swagger UI's script and its start (init.js) are files of the server: no inline script. It
 * styles its elements inline and draws its icons from `data:` URLs.
 */
export const DOCS_POLICY = contentSecurityPolicy(SELF_SERVED_APP);

/**
 * The reference page: Swagger UI served from the package itself (no CDN: users may be offline).
 * `assets` is the folder to serve from; tests pass null to see the page a bare checkout gets.
 */
export function docsRouter(assets: string | null = findDocsAssets()): Router {
  const router = express.Router();
  router.get('/', (_req, res) => {
    setPageHeaders(res, DOCS_POLICY);
    res.type('html').send(assets ? page : pageWithoutAssets);
  });
  router.get('/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  if (assets) {
    // Only the listed files, so the built copy and the dev dependency's folder answer alike.
    router.get('/assets/:file', (req, res, next) => {
      const file = req.params.file;
      if (!SERVED_FILES.has(file)) return next();
      // LICENSE and NOTICE have no extension to take a type from: they are text to read.
      if (!file.includes('.')) res.type('text/plain; charset=utf-8');
      res.sendFile(join(assets, file), { dotfiles: 'deny' });
    });
  }
  return router;
}
