import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { docsRouter, DOCS_ASSET_FILES, findDocsAssets } from '../../src/docs/docs-page.js';

function docsApp(assets: string | null) {
  const app = express();
  app.use('/docs', docsRouter(assets));
  return request(app);
}

describe('GET /docs', () => {
  describe('with Swagger UI at hand (the built copy, or the dev dependency from source)', () => {
    const assets = findDocsAssets();

    it('finds the assets in a checkout with its dev dependencies', () => {
      expect(assets).not.toBeNull();
    });

    it('serves the page and each file it loads', async () => {
      const page = await docsApp(assets).get('/docs');
      expect(page.status).toBe(200);
      for (const file of DOCS_ASSET_FILES) {
        expect(page.text).toContain(`/docs/assets/${file}`);
        const asset = await docsApp(assets).get(`/docs/assets/${file}`);
        expect(asset.status, file).toBe(200);
        expect(asset.headers['content-type'], file).toMatch(file.endsWith('.js') ? /javascript/ : /css/);
      }
    });

    it('serves Swagger UI licence beside them', async () => {
      const licence = await docsApp(assets).get('/docs/assets/LICENSE');
      expect(licence.status).toBe(200);
      expect(licence.text).toContain('Apache License');
    });

    it('serves no other file of the folder', async () => {
      for (const file of ['package.json', 'index.html', '..%2Fpackage.json']) {
        expect((await docsApp(assets).get(`/docs/assets/${file}`)).status, file).toBe(404);
      }
    });
  });

  describe('without Swagger UI (a source checkout installed without dev dependencies, never built)', () => {
    it('answers a small page that says why and links to the contracts', async () => {
      const page = await docsApp(null).get('/docs');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('npm run build');
      expect(page.text).toContain('href="/openapi.yaml"');
      expect(page.text).toContain('href="/control.yaml"');
      expect(page.text).not.toContain('swagger-ui-bundle.js');
    });

    it('has no assets to serve', async () => {
      expect((await docsApp(null).get('/docs/assets/swagger-ui-bundle.js')).status).toBe(404);
    });
  });
});
