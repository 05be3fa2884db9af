import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Router } from 'express';

const require = createRequire(import.meta.url);

/** The reference page: Swagger UI served from the installed package (no CDN: users may be offline). */
export function docsRouter(): Router {
  const router = express.Router();
  // Only the folder is needed: requiring the package itself evaluates its 1.5 MB browser
  // bundle, which was about a tenth of the mock's start-up (docs/performance.md).
  const assets = dirname(require.resolve('swagger-ui-dist/package.json'));
  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Social Publishing Gateway API (social-gateway-mock)</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;
  const init = `window.ui = SwaggerUIBundle({ urls: [{ url: '/openapi.yaml', name: 'API' }, { url: '/control.yaml', name: 'Control plane' }], dom_id: '#docs', deepLinking: true, layout: 'BaseLayout' });`;
  router.get('/', (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  router.use('/assets', express.static(assets, { index: false, fallthrough: false }));
  return router;
}
