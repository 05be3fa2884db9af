import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { VERSION } from '../../src/version.js';
import { scratchProject, type ScratchProject } from '../helpers/packed.js';

// The product as a user gets it: `npm pack`, installed into a project of its own, run through npx.
// Packing and installing are cached (test/helpers/packed.ts), so only the first run pays for them.

/** The start banner's API line, as in test/helpers/process.ts. */
const BANNER_API = /API\s+(http:\/\/\S+)\/v1/;

interface RunningMock {
  url: string;
  child: ResultPromise;
  /** Stops the whole process group (npx, its shell, the server) and waits for npx to end. */
  stop(): Promise<void>;
}

/** `npx social-gateway-mock <args>` in the project, in a process group of its own; resolves once the banner is out. */
async function startMock(project: ScratchProject, args: string[]): Promise<RunningMock> {
  const child = project.run('npx', ['social-gateway-mock', ...args], { detached: true, reject: false });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no banner within 30 s:\n${out}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = BANNER_API.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void child.then((result) => {
      clearTimeout(timer);
      reject(new Error(`npx exited (${result.exitCode ?? result.signal}) before the banner:\n${out}\n${String(result.stderr)}`));
    });
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await child;
      clearTimeout(killer);
    },
  };
}

let project: ScratchProject;
beforeAll(async () => {
  project = await scratchProject('packed');
}, 240_000);
afterAll(async () => {
  await project?.remove();
});

describe('the packed package, installed with npm install -D', () => {
  it('brings no Swagger UI package and no analytics package: the docs assets are its own', () => {
    expect(existsSync(join(project.dir, 'node_modules', 'social-gateway-mock', 'dist', 'docs-assets', 'swagger-ui-bundle.js'))).toBe(true);
    expect(existsSync(join(project.dir, 'node_modules', 'swagger-ui-dist'))).toBe(false);
    expect(existsSync(join(project.dir, 'node_modules', '@scarf'))).toBe(false);
  });

  it('npx social-gateway-mock --version prints its version', async () => {
    const result = await project.run('npx', ['social-gateway-mock', '--version']);
    expect(result.stdout.trim()).toBe(VERSION);
  });

  describe('npx social-gateway-mock --port 0', () => {
    let mock: RunningMock;
    beforeAll(async () => {
      mock = await startMock(project, ['--port', '0']);
    }, 60_000);
    afterAll(async () => {
      await mock?.stop();
    });

    it('answers the API with the default key', async () => {
      const res = await fetch(`${mock.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { connections: unknown[] };
      expect(body.connections.length).toBeGreaterThan(0);
    });

    it('serves the docs page and the Swagger UI files it loads', async () => {
      const page = await fetch(`${mock.url}/docs`);
      expect(page.status).toBe(200);
      const html = await page.text();
      for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']) {
        expect(html).toContain(asset);
        const res = await fetch(`${mock.url}${asset}`);
        expect(res.status, asset).toBe(200);
        expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(100_000);
      }
    });

    it('answers the index at /', async () => {
      const res = await fetch(`${mock.url}/`);
      expect(await res.json()).toMatchObject({ name: 'social-gateway-mock', version: VERSION, api: `${mock.url}/v1` });
    });
  });
});
