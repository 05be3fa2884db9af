import { readFileSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { Options, Result, ResultPromise } from 'execa';
import { afterEach, beforeAll, expect } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { scratchProject, type ScratchProject } from './packed.js';
import { expectNoProcessLeft } from './process.js';


/**
 * Tests of the recipes in docs/: each runs the commands a doc shows, read from the doc's fenced
 * code blocks at test time, so the doc cannot say one thing while the test checks another.
 */

export interface DocBlock {
  /** The fence's language (`yaml`, `sh`, `ts`, …). */
  lang: string;
  code: string;
  /** The path in the `<!-- file: … -->` comment just above the fence, when there is one. */
  file: string | undefined;
  /** The nearest heading above the block. */
  heading: string;
}

/** Every fenced code block of a file under docs/. */
export function docBlocks(doc: string): DocBlock[] {
  return markdownBlocks(join('docs', doc));
}

/** Every fenced code block of a Markdown file of the package (`README.md`, `docs/ci.md`). */
export function markdownBlocks(path: string): DocBlock[] {
  const lines = readFileSync(packagePath(path), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let heading = '';
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const headingMatch = /^#{1,6}\s+(.*)$/.exec(line);
    if (headingMatch) heading = headingMatch[1]!.trim();
    const fence = /^(`{3,})\s*([\w-]*)/.exec(line);
    if (!fence) continue;
    let previous = index - 1;
    while (previous >= 0 && lines[previous]!.trim() === '') previous -= 1;
    const file = previous >= 0 ? /^<!--\s*file:\s*(\S+)\s*-->$/.exec(lines[previous]!.trim())?.[1] : undefined;
    const body: string[] = [];
    for (index += 1; index < lines.length && !lines[index]!.startsWith(fence[1]!); index += 1) body.push(lines[index]!);
    blocks.push({ lang: fence[2] ?? '', code: `${body.join('\n')}\n`, file, heading });
  }
  return blocks;
}

/**
 * The file under `<!-- file: path -->` in the doc: its block, or its blocks in order when the doc
 * gives it in parts (a walk-through). Fails the test when there is none.
 */
export function docFile(doc: string, path: string): string {
  const found = docBlocks(doc).filter((block) => block.file === path);
  if (found.length === 0) throw new Error(`docs/${doc} has no block under <!-- file: ${path} -->`);
  return found.map((block) => block.code).join('');
}

/** The blocks of one language under a heading (the heading's own text, as written). */
export function docBlocksUnder(doc: string, heading: string, lang: string): DocBlock[] {
  const found = docBlocks(doc).filter((block) => block.heading === heading && block.lang === lang);
  if (found.length === 0) throw new Error(`docs/${doc} has no ${lang} block under the heading "${heading}"`);
  return found;
}

/** Writes every `<!-- file: prefix… -->` file of the doc into `dir`, without the prefix; answers the paths written. */
export async function writeDocFiles(doc: string, prefix: string, dir: string): Promise<string[]> {
  const files = [...new Set(docBlocks(doc).flatMap((block) => (block.file?.startsWith(prefix) ? [block.file] : [])))];
  if (files.length === 0) throw new Error(`docs/${doc} has no <!-- file: ${prefix}… --> block`);
  for (const file of files) {
    const relative = file.slice(prefix.length);
    await mkdir(dirname(join(dir, relative)), { recursive: true });
    await writeFile(join(dir, relative), docFile(doc, file));
  }
  return files.map((file) => file.slice(prefix.length));
}

/**
 * The dev dependencies of the TypeScript recipes, at the versions this repository has installed
 * (so the npm cache holds them and the install needs no network). One list for every recipe
 * test: they all share one scratch install.
 */
export function recipeDevDependencies(): string[] {
  return ['vitest', 'jest', '@playwright/test', 'typescript', 'openapi-fetch'].map((name) => {
    const { version } = JSON.parse(readFileSync(packagePath('node_modules', name, 'package.json'), 'utf8')) as { version: string };
    return `${name}@${version}`;
  });
}

/** A scratch project with the packed package and the recipes' dev dependencies installed. */
export function recipeProject(name: string): Promise<ScratchProject> {
  return scratchProject(name, { devDependencies: recipeDevDependencies() });
}

/** Sets `scripts` in the scratch project's package.json. */
export async function setScripts(project: ScratchProject, scripts: Record<string, string>): Promise<void> {
  const path = join(project.dir, 'package.json');
  const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, `${JSON.stringify({ ...manifest, scripts }, null, 2)}\n`);
}

/**
 * A user's own integration test, run by `npm test` (node's test runner, no dependency): it reads
 * the server from the variables `run` sets and calls eight operations, createPost, getPost and
 * listPosts among them (8 of the API's 56: over the docs' `--coverage-min 10`).
 */
const USER_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';

const api = \`\${process.env.SOCIAL_GATEWAY_MOCK_URL}/v1\`;
const headers = { 'x-api-key': process.env.SOCIAL_GATEWAY_MOCK_API_KEY, 'content-type': 'application/json' };

async function call(method, path, body) {
  const res = await fetch(api + path, { method, headers, body: body && JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

test('reads', async () => {
  for (const path of ['/accounts', '/profiles', '/webhooks', '/automations']) assert.equal((await call('GET', path)).status, 200, path);
});

test('a post, created and read back', async () => {
  const { body } = await call('GET', '/connections');
  const bluesky = body.connections.find((connection) => connection.platform === 'bluesky' && connection.status === 'active');
  const created = await call('POST', '/posts', { text: 'Hello from CI', destinations: [{ connectionId: bluesky.id }] });
  assert.equal(created.status, 201);
  assert.equal((await call('GET', \`/posts/\${created.body.post.id}\`)).status, 200);
  assert.equal((await call('GET', '/posts')).status, 200);
});
`;

/** A suite that fails: one assertion that does not hold. */
const FAILING_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';

test('fails', async () => {
  const res = await fetch(\`\${process.env.SOCIAL_GATEWAY_MOCK_URL}/v1/accounts\`, { headers: { 'x-api-key': 'sgw_not_a_key' } });
  assert.equal(res.status, 200);
});
`;

/** A suite that passes without calling the API: under any coverage gate. */
const IDLE_TEST = `import { test } from 'node:test';
test('calls nothing', () => {});
`;

export type UserSuite = 'passing' | 'failing' | 'idle';

/**
 * Gives the scratch project an `npm test` of its own: `passing` (the suite above), `failing`
 * (exits 3, a status of its own so a test can tell it from the coverage gate's 1) or `idle`
 * (passes, calls nothing).
 */
export async function writeUserSuite(project: ScratchProject, suite: UserSuite): Promise<void> {
  await mkdir(join(project.dir, 'test'), { recursive: true });
  const source = suite === 'passing' ? USER_TEST : suite === 'failing' ? FAILING_TEST : IDLE_TEST;
  await writeFile(join(project.dir, 'test', 'api.test.js'), source);
  await setScripts(project, { test: suite === 'failing' ? 'node --test || exit 3' : 'node --test' });
}

/** The environment a CI runner gives a step, besides the user's shell's. */
export interface StepOutcome {
  /** The step's name, or its `run:`/`uses:` when it has none. */
  name: string;
  /** `ran` with its exit code, `used` (an action: not run here), or `skipped` by its `if:`. */
  outcome: 'ran' | 'used' | 'skipped';
  exitCode?: number;
  output?: string;
  /** An action's `with:`. */
  with?: Record<string, unknown>;
}

export interface JobOutcome {
  /** 0 when every step that ran passed; else the first failing step's exit code. */
  status: number;
  steps: StepOutcome[];
}

/** Bash as GitHub Actions runs a step, and as GitLab's runner runs a job's script: `-c` takes the script. */
export const CI_BASH = ['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c'];

/**
 * Runs a command in the project, in a process group of its own; stdout and stderr interleaved in
 * `all`, without colours (the tests read what the tools print).
 */
export async function runCommand(project: ScratchProject, argv: string[], env: Record<string, string> = {}): Promise<Result> {
  return project.run(argv[0]!, argv.slice(1), { env: { NO_COLOR: '1', FORCE_COLOR: '0', ...env }, reject: false, all: true, detached: true, timeout: 90_000 });
}

/**
 * Runs a GitHub Actions job from a workflow file: the `run:` steps after `npm ci` (the scratch
 * project is installed already), each as the runner does (`bash --noprofile --norc -eo pipefail`),
 * honouring `if: always()`, `success()` and `failure()`. Actions (`uses:`) are recorded, not run.
 * Anything this runner does not understand (another `if:`, `shell:`, `working-directory:`) fails
 * the test: the doc must stay within what is tested.
 */
export async function runGithubJob(project: ScratchProject, workflow: Record<string, unknown>, env: Record<string, string>): Promise<JobOutcome> {
  const jobs = Object.values(workflow['jobs'] as Record<string, { steps: Array<Record<string, unknown>> }>);
  expect(jobs).toHaveLength(1);
  const steps = jobs[0]!.steps;
  const install = steps.findIndex((step) => step['run'] === 'npm ci');
  expect(install, 'a step runs npm ci').toBeGreaterThan(-1);
  const outcomes: StepOutcome[] = [];
  let status = 0;
  for (const step of steps.slice(install + 1)) {
    const unknownKeys = Object.keys(step).filter((key) => !['name', 'run', 'uses', 'with', 'if'].includes(key));
    if (unknownKeys.length > 0) throw new Error(`the job runner of this test does not know ${unknownKeys.join(', ')}`);
    const name = String(step['name'] ?? step['run'] ?? step['uses']);
    const condition = String(step['if'] ?? 'success()');
    const runs = { 'always()': true, 'success()': status === 0, 'failure()': status !== 0 }[condition];
    if (runs === undefined) throw new Error(`the job runner of this test does not know if: ${condition}`);
    if (!runs) {
      outcomes.push({ name, outcome: 'skipped' });
    } else if (typeof step['uses'] === 'string') {
      outcomes.push({ name, outcome: 'used', with: step['with'] as Record<string, unknown> });
    } else {
      const result = await runCommand(project, [...CI_BASH, String(step['run'])], env);
      const exitCode = result.exitCode ?? 128;
      outcomes.push({ name, outcome: 'ran', exitCode, output: String(result.all) });
      if (exitCode !== 0 && status === 0) status = exitCode;
    }
  }
  return { status, steps: outcomes };
}

/**
 * Runs a GitLab CI job's `script:` lines after the one that starts with `npm ci`, in one shell
 * as the runner does (each line stops the job when it fails).
 */
export async function runGitlabJob(project: ScratchProject, job: { script: string[] }, env: Record<string, string>): Promise<{ status: number; output: string }> {
  const install = job.script.findIndex((line) => line.startsWith('npm ci'));
  expect(install, 'a script line runs npm ci').toBeGreaterThan(-1);
  const result = await runCommand(project, [...CI_BASH, job.script.slice(install + 1).join('\n')], env);
  return { status: result.exitCode ?? 128, output: String(result.all) };
}

/** A port nothing listens on now, for a recipe that names a fixed one (4010) another suite may hold. */
/**
 * The server's root from the banner of `npx social-gateway-mock` started with execa (`all: true`):
 * rejects with the output when the server exits before printing it.
 */
export function bannerUrl<O extends Options & { all: true }>(server: ResultPromise<O>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /API\s+(http:\/\/\S+)\/v1/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    void server.then((result) => reject(new Error(`the server exited before its banner:\n${String(result.all)}`)));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The projects of one file's recipe tests, named `<prefix>-<name>`: the shared install is
 * made (or waited for) once before the file's tests, and after each test every project it
 * made is checked for processes left behind, then removed. Call at a file's top level.
 */
export function useRecipeProjects(prefix: string): (name: string) => Promise<ScratchProject> {
  const projects: ScratchProject[] = [];
  const make = async (name: string) => {
    const made = await recipeProject(`${prefix}-${name}`);
    projects.push(made);
    return made;
  };
  beforeAll(async () => {
    // The shared install (packing, then npm install) is made once for every recipe test.
    await make('warm-up');
  }, 600_000);
  afterEach(async () => {
    for (const made of projects.splice(0)) {
      await expectNoProcessLeft(made.dir);
      await made.remove();
    }
  });
  return make;
}
