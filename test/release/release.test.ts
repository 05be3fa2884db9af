import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, realpathSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { VERSION } from '../../src/version.js';
import { httpClient } from '../helpers/mcp.js';
import { seedDist } from '../helpers/packed.js';
import { rawExchange } from '../helpers/raw-http.js';
import { bannerUrl, docBlocksUnder, docFile, freePort } from '../helpers/recipes.js';

/*
 * The release of issue 38, built once for this file (`npm run build:image`, which builds the
 * executable first): the single executable run with no Node on its PATH, every command of it, and
 * the image loaded by podman and served from its own root filesystem under chroot, with no Node
 * in it at all, against the API and the control-plane steps of docs/containers.md.
 */

const EXECUTABLE = packagePath('release', 'social-gateway-mock-linux-x64');
const IMAGE = packagePath('release', 'social-gateway-mock-image.tar');
const KEY = { 'x-api-key': 'sgw_test_default' };

/** A folder of its own for each test's files, and a bin folder holding the tools the commands use, and no node. */
let scratch: string;
let noNodeBin: string;

/** A tool's own file, not a wrapper that needs more on the PATH (pyenv's python3 is a bash script). */
function which(tool: string): string {
  if (tool === 'python3') return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  return realpathSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim());
}

/** The environment of a machine without Node: a shell, curl, the text tools the recipes use and python3 on the PATH. */
function noNodeEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: noNodeBin, HOME: scratch, TMPDIR: join(scratch, 'tmp'), SOCIAL_GATEWAY_MOCK_PORT: '0', ...extra };
}

function executable(args: string[], extra: Record<string, string> = {}, cwd = scratch): ResultPromise<{ all: true; reject: false; extendEnv: false; env: Record<string, string>; cwd: string; timeout: number }> {
  return execa(EXECUTABLE, args, { all: true, reject: false, extendEnv: false, env: noNodeEnv(extra), cwd, timeout: 60_000 });
}

/** Starts the executable's server, answers its root URL and a stop. */
async function serve(args: string[] = []): Promise<{ url: string; banner: () => string; stop: () => Promise<void> }> {
  const server = executable(args);
  let banner = '';
  server.all.on('data', (chunk: Buffer) => {
    banner += chunk.toString();
  });
  const url = await bannerUrl(server);
  return {
    url,
    banner: () => banner,
    stop: async () => {
      server.kill('SIGTERM');
      await server;
    },
  };
}

beforeAll(async () => {
  // A fresh clone has no dist/: it starts from the one npm pack built (shared with the package's
  // tests), so build:image's own build finds it up to date; what it adds (the executable, the image) is built here.
  await seedDist();
  const built = await execa('npm', ['run', 'build:image'], { cwd: packagePath(), all: true, reject: false });
  expect(built.exitCode, String(built.all)).toBe(0);
  scratch = mkdtempSync(join(tmpdir(), 'sgm-release-'));
  noNodeBin = join(scratch, 'bin');
  mkdirSync(noNodeBin);
  mkdirSync(join(scratch, 'tmp'), { mode: 0o700 });
  for (const tool of ['sh', 'curl', 'cat', 'sed', 'grep', 'head', 'seq', 'sleep', 'python3']) symlinkSync(which(tool), join(noNodeBin, tool));
}, 600_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the single executable', { timeout: 60_000 }, () => {
  it('runs where no node is on the PATH', async () => {
    const probe = await execa('sh', ['-c', 'command -v node'], { env: noNodeEnv(), extendEnv: false, reject: false });
    expect(probe.exitCode, 'node is out of reach').not.toBe(0);
    const version = await executable(['--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toBe(VERSION);
  });

  it('serves the API, the contract, /docs with its assets, the dashboard and /mcp', async () => {
    const { url, banner, stop } = await serve(['--scenario', 'flaky-network']);
    try {
      expect((await fetch(`${url}/v1/connections`, { headers: KEY })).status).toBe(200);
      expect(await (await fetch(`${url}/openapi.yaml`)).text()).toBe(readFileSync(packagePath('openapi.yaml'), 'utf8'));
      const docs = await fetch(`${url}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('/docs/assets/swagger-ui-bundle.js');
      const bundle = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`);
      expect(bundle.status).toBe(200);
      expect((await bundle.arrayBuffer()).byteLength).toBe(statSync(packagePath('dist', 'docs-assets', 'swagger-ui-bundle.js')).size);
      expect((await fetch(`${url}/__dashboard`)).status).toBe(200);
      expect((await fetch(`${url}/__dashboard/vendor/preact.mjs`)).status).toBe(200);
      const main = await fetch(`${url}/__dashboard/ui/main.js`);
      expect(main.status).toBe(200);
      expect(await main.text()).toBe(readFileSync(packagePath('dist', 'dashboard', 'code', 'dashboard', 'ui', 'main.js'), 'utf8'));
      // The ready-made scenario given at start, read from the executable's own files.
      expect(banner()).toMatch(/Scenario\s+flaky-network/);
      const client = await httpClient(url);
      try {
        expect((await client.listTools()).tools.length).toBeGreaterThan(10);
      } finally {
        await client.close();
      }
    } finally {
      await stop();
    }
  });

  it("runs a command with run --, giving it the server's variables and exiting with its status", async () => {
    const result = await executable(['run', '--', 'sh', '-c', 'curl -sf -H "x-api-key: $SOCIAL_GATEWAY_MOCK_API_KEY" "$SOCIAL_GATEWAY_MOCK_URL/v1/accounts" > accounts.json; exit 7']);
    expect(result.exitCode, result.all).toBe(7);
    expect((JSON.parse(readFileSync(join(scratch, 'accounts.json'), 'utf8')) as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('serves MCP on stdio with a mock of its own', async () => {
    const transport = new StdioClientTransport({ command: EXECUTABLE, args: ['mcp'], cwd: scratch, env: noNodeEnv(), stderr: 'pipe' });
    const client = new Client({ name: 'release-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('call_api');
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.name)).toContain('openapi.yaml');
      const read = await client.readResource({ uri: 'social-gateway-mock://contract/control.yaml' });
      expect(JSON.stringify(read.contents)).toContain('/__control/health');
    } finally {
      await client.close();
    }
  });

  it('records through proxy, then drift and scenario from-recording read the recording', async () => {
    const upstream = await serve();
    try {
      const recorded = await executable(['proxy', '--upstream', upstream.url, '--record', 'recording', '--', 'sh', '-c', 'curl -sf -H "x-api-key: sgw_test_default" "$SOCIAL_GATEWAY_MOCK_URL/v1/accounts" > /dev/null']);
      expect(recorded.exitCode, recorded.all).toBe(0);
      expect(readdirSync(join(scratch, 'recording')).some((file) => file.endsWith('.json'))).toBe(true);
    } finally {
      await upstream.stop();
    }
    const drift = await executable(['drift', 'recording', '--json']);
    expect(drift.exitCode, drift.all).toBe(0);
    expect(JSON.parse(drift.stdout)).toMatchObject({ exchanges: 1 });
    const scenario = await executable(['scenario', 'from-recording', 'recording']);
    expect(scenario.exitCode, scenario.all).toBe(0);
    expect(scenario.stdout).toContain('rules:');
  });

  it('writes its files once into a folder of the user alone, and refuses one others may write', async () => {
    const fresh = mkdtempSync(join(scratch, 'fresh-'));
    expect((await executable(['--version'], { TMPDIR: fresh })).exitCode).toBe(0);
    const [folder] = readdirSync(fresh);
    expect(folder).toBe(`social-gateway-mock-${process.getuid!()}`);
    expect(statSync(join(fresh, folder!)).mode & 0o777).toBe(0o700);
    const [build] = readdirSync(join(fresh, folder!));
    expect(existsSync(join(fresh, folder!, build!, 'openapi.yaml'))).toBe(true);

    chmodSync(join(fresh, folder!), 0o777);
    const refused = await executable(['--version'], { TMPDIR: fresh });
    expect(refused.exitCode).toBe(1);
    expect(refused.all).toBe(`social-gateway-mock: cannot write out its files: ${join(fresh, folder!)} is not a folder of this user's alone; remove it, or set TMPDIR to another folder`);
  });

  it('says in one line why it cannot start when its temporary folder is no folder', async () => {
    const file = join(scratch, 'not-a-folder');
    writeFileSync(file, '');
    const refused = await executable(['--version'], { TMPDIR: file });
    expect(refused.exitCode).toBe(1);
    expect(refused.all).toMatch(/^social-gateway-mock: cannot write out its files: ENOTDIR: [^\n]*$/);
  });
});

/** Podman with a store of this test's own: nothing is left in the machine's images. */
function podman(store: string, args: string[]) {
  return execa('podman', ['--root', join(store, 'root'), '--runroot', join(store, 'run'), '--storage-driver', 'vfs', ...args], { all: true, reject: false });
}

/** An address of this machine other than loopback: a request from it comes "over the network" to the server. */
function outsideAddress(): string {
  const found = Object.values(networkInterfaces()).flat().find((entry) => entry && entry.family === 'IPv4' && !entry.internal);
  if (!found) throw new Error('this machine has no non-loopback IPv4 address to call the container from');
  return found.address;
}

describe('the image', { timeout: 120_000 }, () => {
  let store: string;
  let rootfs: string;
  let config: { User: string; ExposedPorts: Record<string, unknown>; Entrypoint: string[]; Env: string[] };

  beforeAll(async () => {
    store = mkdtempSync(join(tmpdir(), 'sgm-podman-'));
    const loaded = await podman(store, ['load', '-i', IMAGE]);
    expect(loaded.exitCode, loaded.all).toBe(0);
    expect(loaded.all).toContain(`Loaded image: localhost/social-gateway-mock:${VERSION}`);
    const inspected = await podman(store, ['image', 'inspect', `social-gateway-mock:${VERSION}`]);
    expect(inspected.exitCode, inspected.all).toBe(0);
    config = (JSON.parse(inspected.stdout) as Array<{ Config: typeof config }>)[0]!.Config;
    const mounted = await podman(store, ['image', 'mount', `social-gateway-mock:${VERSION}`]);
    expect(mounted.exitCode, mounted.all).toBe(0);
    rootfs = mounted.stdout.trim();
  }, 120_000);

  afterAll(async () => {
    if (!store) return;
    await podman(store, ['image', 'umount', '--all']);
    rmSync(store, { recursive: true, force: true });
  });

  it('runs the executable as a non-root user, exposes 4010/tcp and holds no Node', () => {
    expect(config.User).toBe('10001:10001');
    expect(Object.keys(config.ExposedPorts)).toEqual(['4010/tcp']);
    expect(config.Entrypoint).toEqual(['/social-gateway-mock']);
    expect(readFileSync(join(rootfs, 'etc', 'passwd'), 'utf8')).toMatch(/^mock:x:10001:10001:/m);
    expect(statSync(join(rootfs, 'tmp')).mode & 0o7777).toBe(0o1777);
    expect(readdirSync(rootfs).sort()).toEqual(['etc', 'lib', 'lib64', 'social-gateway-mock', 'tmp']);
    expect(existsSync(join(rootfs, 'usr'))).toBe(false);
  });

  describe('its filesystem, served under chroot as the image says', () => {
    let server: ResultPromise<{ all: true; reject: false; extendEnv: false; env: Record<string, string> }>;
    let port: number;
    let local: string;

    beforeAll(async () => {
      port = await freePort();
      // The image's own environment; only the port moves (4010 may be taken on this machine).
      const env = Object.fromEntries(config.Env.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
      server = execa(which('chroot'), [`--userspec=${config.User}`, rootfs, ...config.Entrypoint], { all: true, reject: false, extendEnv: false, env: { ...env, SOCIAL_GATEWAY_MOCK_PORT: String(port) } });
      await bannerUrl(server);
      local = `http://127.0.0.1:${port}`;
    }, 60_000);

    afterAll(async () => {
      server?.kill('SIGTERM');
      await server;
    });

    it('listens on every interface: the API answers a caller from outside', async () => {
      const answer = await fetch(`http://${outsideAddress()}:${port}/v1/accounts?limit=1`, { headers: KEY });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { data: unknown[] }).data).toHaveLength(1);
    });

    it("answers the names a CI service gets, and still refuses another site's", async () => {
      for (const host of ['mock', 'social-gateway-mock', 'localhost']) {
        expect(await healthAs(port, `${host}:4010`), host).toBe(200);
      }
      expect(await healthAs(port, 'evil.example')).toBe(403);
    });

    it('serves /docs and the dashboard from the files inside', async () => {
      expect((await fetch(`${local}/docs/assets/swagger-ui.css`)).status).toBe(200);
      expect((await fetch(`${local}/__dashboard/ui/main.js`)).status).toBe(200);
    });

    it("runs docs/containers.md's control-plane steps: a fresh workspace, used, then deleted", async () => {
      const script = join(scratch, 'workspace-per-test.sh');
      writeFileSync(script, docFile('containers.md', 'workspace-per-test.sh'));
      const result = await execa('sh', [script], { env: noNodeEnv({ MOCK_URL: local }), extendEnv: false, all: true, reject: false });
      expect(result.exitCode, result.all).toBe(0);
      expect(result.stdout).toMatch(/"status":"ok"/);
      expect(result.stdout).toMatch(/"status":"published"/);
    });
  });
});

describe("docs/containers.md: the executable in a Python project's CI", { timeout: 90_000 }, () => {
  it('runs the Python line as written, against the pytest fixture of docs/other-languages.md', async () => {
    const project = mkdtempSync(join(scratch, 'python-'));
    symlinkSync(EXECUTABLE, join(project, 'social-gateway-mock'));
    writeFileSync(join(project, 'conftest.py'), docFile('other-languages.md', 'conftest.py'));
    writeFileSync(join(project, 'test_posts.py'), docFile('other-languages.md', 'test_posts.py'));
    const lines = docBlocksUnder('containers.md', "The executable in a Python or Go project's CI", 'sh').map((block) => block.code.trim());
    const line = lines.find((code) => code.includes('pytest'));
    expect(line).toBeDefined();
    const result = await execa('sh', ['-c', line!], { cwd: project, env: noNodeEnv(), extendEnv: false, all: true, reject: false });
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toMatch(/\d+ passed/);
    expect(readFileSync(join(project, 'coverage.md'), 'utf8')).toContain('`createPost`');
  });
});

/** GET /__control/health with a Host of our choosing (fetch sets its own): the answer's status. */
async function healthAs(port: number, host: string): Promise<number | undefined> {
  return (await rawExchange(port, { chunks: [`GET /__control/health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`] })).status;
}
