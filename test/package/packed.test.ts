import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleOf, VIEWS } from '../../src/dashboard/ui/views.js';
import { DEFAULT_API_KEY } from '../../src/server.js';
import { VERSION } from '../../src/version.js';
import { scratchProject, type ScratchProject } from '../helpers/packed.js';
import { processesIn } from '../helpers/process.js';

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
      // The group, even when npx has ended: a server it left behind is still in it (and holds its stdout).
      const signalGroup = (signal: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          // ESRCH: nothing of the group is left.
        }
      };
      signalGroup('SIGTERM');
      const killer = setTimeout(() => signalGroup('SIGKILL'), 10_000);
      await child;
      clearTimeout(killer);
    },
  };
}

function portAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `check` until it holds or `withinMs` has passed; answers whether it held. */
async function becomes(check: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Coverage {
  byOperation: Array<{ operationId: string; calls: number }>;
}

function callsOf(project: ScratchProject, file: string, operationId: string): number | undefined {
  const report = JSON.parse(readFileSync(join(project.dir, file), 'utf8')) as Coverage;
  return report.byOperation.find((operation) => operation.operationId === operationId)?.calls;
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
      // Every file the page names, the standalone preset (the definition picker) among them.
      const assets = [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[\w.-]+)"/g)].map((match) => match[1] ?? '');
      expect(assets).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui-standalone-preset.js']);
      for (const asset of assets) {
        const res = await fetch(`${mock.url}${asset}`);
        expect(res.status, asset).toBe(200);
        expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(100_000);
      }
    });

    // Offline: every file the page loads comes from the package (decision 0021).
    it('serves the dashboard, its modules and Preact from the package, with no preact installed', async () => {
      expect(existsSync(join(project.dir, 'node_modules', 'preact'))).toBe(false);
      const page = await fetch(`${mock.url}/__dashboard`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const vendor = [...html.matchAll(/"(\/__dashboard\/vendor\/[\w.-]+)"/g)].map((match) => match[1] ?? '');
      expect(vendor).toEqual(['/__dashboard/vendor/preact.mjs', '/__dashboard/vendor/hooks.mjs', '/__dashboard/vendor/jsx-runtime.mjs']);
      const main = await fetch(`${mock.url}/__dashboard/ui/main.js`);
      expect(main.status).toBe(200);
      const modules = [...(await main.text()).matchAll(/from '\.\/([\w-]+\.js)'/g)].map((match) => `/__dashboard/ui/${match[1] ?? ''}`);
      expect(modules).toContain('/__dashboard/ui/views.js');
      // main.js loads each view's module by the view's id (src/dashboard/ui/views.ts), not by an import.
      const views = VIEWS.map((view) => `/__dashboard/ui/${moduleOf(view)}.js`);
      expect(views).toContain('/__dashboard/ui/requests-view.js');
      for (const path of [...vendor, ...modules, ...views]) {
        const res = await fetch(`${mock.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-type'), path).toMatch(/^text\/javascript/);
      }
    });

    it('answers the index at /', async () => {
      const res = await fetch(`${mock.url}/`);
      expect(await res.json()).toMatchObject({ name: 'social-gateway-mock', version: VERSION, api: `${mock.url}/v1` });
    });
  });

  // The README's CI recipe: start it in the background, run the tests, `kill -TERM $!`. $! is npx,
  // not the server: npx passes the signal to a shell that dies of it, and the server must notice.
  describe('the CI recipe: npx social-gateway-mock … & then kill -TERM of npx', () => {
    it('stops the server within 5 s: port free, no process left, coverage written', async () => {
      const mock = await startMock(project, ['--port', '0', '--coverage-report', 'cov-recipe.json']);
      try {
        expect((await fetch(`${mock.url}/v1/connections`, { headers: { 'x-api-key': DEFAULT_API_KEY } })).status).toBe(200);
        expect((await processesIn(project.dir)).length).toBeGreaterThan(0);

        process.kill(mock.child.pid!, 'SIGTERM');
        const stopped = await becomes(async () => !(await portAnswers(mock.url)) && (await processesIn(project.dir)).length === 0, 5_000);
        expect(stopped, `still running 5 s after SIGTERM: ${JSON.stringify(await processesIn(project.dir))}`).toBe(true);
        expect(callsOf(project, 'cov-recipe.json', 'listConnections')).toBe(1);
      } finally {
        await mock.stop();
      }
    });
  });

  describe('npx social-gateway-mock run … -- <command>', () => {
    // The command a CI job would run: a client of the mock, told where it is by the environment.
    const client = (exitCode: number) =>
      [
        `const { SOCIAL_GATEWAY_MOCK_URL: url, SOCIAL_GATEWAY_MOCK_API_KEY: key } = process.env;`,
        `if (key !== '${DEFAULT_API_KEY}') process.exit(10);`,
        `const res = await fetch(url + '/v1/connections', { headers: { 'x-api-key': key } });`,
        `process.exit(res.status === 200 ? ${exitCode} : 11);`,
      ].join('\n');

    it("exits 0 when the command passes, with the coverage of the command's traffic written", async () => {
      const result = await project.run('npx', ['social-gateway-mock', 'run', '--port', '0', '--coverage-report', 'cov-run.json', '--', 'node', '--input-type=module', '-e', client(0)], { reject: false });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(callsOf(project, 'cov-run.json', 'listConnections')).toBe(1);
      expect(await processesIn(project.dir)).toEqual([]);
    });

    it("exits with the command's status when it fails", async () => {
      const result = await project.run('npx', ['social-gateway-mock', 'run', '--port', '0', '--coverage-report', 'cov-failed.json', '--', 'node', '--input-type=module', '-e', client(3)], { reject: false });
      expect(result.exitCode, result.stderr).toBe(3);
      expect(callsOf(project, 'cov-failed.json', 'listConnections')).toBe(1);
      expect(await processesIn(project.dir)).toEqual([]);
    });
  });
});
