import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import type { ScratchProject } from '../helpers/packed.js';
import {
  docBlocksUnder,
  docFile,
  freePort,
  runGithubJob,
  runGitlabJob,
  runCommand,
  CI_BASH,
  writeUserSuite,
  useRecipeProjects,
  type UserSuite,
} from '../helpers/recipes.js';

// docs/ci.md, run as written: the GitHub Actions and GitLab CI jobs (their steps after npm ci),
// the background form and the one-line variants, each in a scratch project that has the packed
// package installed and an `npm test` of its own (test/helpers/recipes.ts).

const DOC = 'ci.md';

/**
 * Another job on the same runner holds 4010, the plain server's port, while these run: the
 * doc's `run` lines, run as written, listen on a free port and never meet it. (When 4010 is
 * taken already, by another suite on this machine, it is held all the same.)
 */
let holder: Server | undefined;
beforeAll(async () => {
  holder = await new Promise<Server | undefined>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(4010, '127.0.0.1', () => resolve(server));
  });
});
afterAll(() => holder?.close());

const newProject = useRecipeProjects('ci');
async function project(name: string, suite: UserSuite): Promise<ScratchProject> {
  const made = await newProject(name);
  await writeUserSuite(made, suite);
  return made;
}

function coverage(made: ScratchProject): string {
  const path = join(made.dir, 'coverage.md');
  expect(existsSync(path), 'coverage.md written').toBe(true);
  return readFileSync(path, 'utf8');
}

/** The row of the coverage table's summary: `| Operations | exercised | declared | percent |`. */
function operationsRow(report: string): string | undefined {
  return report.split('\n').find((line) => line.startsWith('| Operations |'));
}

describe('docs/ci.md', { timeout: 120_000 }, () => {
  const workflow = parse(docFile(DOC, '.github/workflows/test.yml')) as { jobs: Record<string, { 'runs-on': string; steps: Array<Record<string, unknown>> }> };
  const gitlab = (parse(docFile(DOC, '.gitlab-ci.yml')) as Record<string, { image: string; script: string[]; artifacts: { when: string; paths: string[] } }>)['test']!;
  const [oneLine, scopedLine] = docBlocksUnder(DOC, 'The mock in CI', 'sh').map((block) => block.code.trim());

  it("shows one run line, and it is the one both jobs run", () => {
    expect(oneLine).toMatch(/^npx social-gateway-mock run --coverage-report coverage\.md --coverage-min \d+ -- npm test$/);
    const steps = Object.values(workflow.jobs)[0]!.steps;
    expect(steps.map((step) => step['run'])).toContain(oneLine);
    expect(steps.find((step) => step['uses'] === 'actions/setup-node@v4')?.['with']).toMatchObject({ 'node-version': 20 });
    expect(gitlab.image).toBe('node:20');
    expect(gitlab.script).toContain(oneLine);
  });

  describe('the GitHub Actions job', () => {
    async function runJob(made: ScratchProject) {
      const summary = join(made.dir, 'step-summary.md');
      await writeFile(summary, '');
      const job = await runGithubJob(made, workflow, { CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
      return { job, summary: readFileSync(summary, 'utf8') };
    }

    it('passes with a passing suite, the coverage report in the job summary and uploaded', async () => {
      const made = await project('github', 'passing');
      const { job, summary } = await runJob(made);
      const [test, toSummary, upload] = job.steps;
      expect(test, test?.output).toMatchObject({ outcome: 'ran', exitCode: 0 });
      expect(job.status).toBe(0);
      // node's test runner ran the user's two tests.
      expect(test!.output).toMatch(/# pass 2\b/);
      const report = coverage(made);
      expect(report).toContain('| `createPost` | `POST /v1/posts` | 1 |');
      expect(toSummary).toMatchObject({ outcome: 'ran', exitCode: 0 });
      expect(summary).toBe(report);
      expect(upload).toMatchObject({ outcome: 'used', with: { path: 'coverage.md' } });
    });

    it("fails with the suite's own status when the suite fails, and still reports the coverage", async () => {
      const made = await project('github-failing', 'failing');
      const { job, summary } = await runJob(made);
      expect(job.status, job.steps[0]?.output).toBe(3);
      expect(job.steps.map((step) => step.outcome)).toEqual(['ran', 'ran', 'used']);
      expect(summary).toBe(coverage(made));
    });
  });

  describe('the GitLab CI job', () => {
    it('passes with a passing suite and keeps coverage.md as an artifact, always', async () => {
      const made = await project('gitlab', 'passing');
      const job = await runGitlabJob(made, gitlab, { CI: 'true', GITLAB_CI: 'true' });
      expect(job.status, job.output).toBe(0);
      expect(job.output).toMatch(/# pass 2\b/);
      expect(gitlab.artifacts).toMatchObject({ when: 'always', paths: ['coverage.md'] });
      expect(coverage(made)).toContain('| `getPost` | `GET /v1/posts/{id}` | 1 |');
    });

    it("fails with the suite's own status when the suite fails", async () => {
      const made = await project('gitlab-failing', 'failing');
      const job = await runGitlabJob(made, gitlab, { CI: 'true', GITLAB_CI: 'true' });
      expect(job.status, job.output).toBe(3);
      coverage(made);
    });
  });

  it('the one line scoped to the client’s operations gates on those: 3 of 3 exercised', async () => {
    const made = await project('scoped', 'passing');
    const result = await runCommand(made, [...CI_BASH, scopedLine!]);
    expect(result.exitCode, String(result.all)).toBe(0);
    expect(operationsRow(coverage(made))).toBe('| Operations | 3 | 3 | 100% |');
    // What the doc promises the log says: per operation, the declared statuses the suite never saw.
    expect(String(result.all)).toMatch(/coverage: createPost never saw status [\d, ]*429/);
  });

  describe('the background form', () => {
    const script = docFile(DOC, 'ci/test-with-mock.sh');

    async function withScript(name: string, suite: UserSuite): Promise<ScratchProject> {
      const made = await project(name, suite);
      await mkdir(join(made.dir, 'ci'), { recursive: true });
      await writeFile(join(made.dir, 'ci', 'test-with-mock.sh'), script);
      return made;
    }

    it('as a script of its own (sh): passes, writes coverage.md, removes the ready file', async () => {
      const made = await withScript('background', 'passing');
      const result = await runCommand(made, ['sh', 'ci/test-with-mock.sh']);
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.all)).toMatch(/# pass 2\b/);
      expect(coverage(made)).toContain('| `listPosts` | `GET /v1/posts` | 1 |');
      expect(existsSync(join(made.dir, 'mock-ready.json'))).toBe(false);
    });

    it("as a GitHub Actions step (bash -eo pipefail): fails with the suite's own status", async () => {
      const made = await withScript('background-failing', 'failing');
      const result = await runCommand(made, [...CI_BASH, script]);
      expect(result.exitCode, String(result.all)).toBe(3);
      coverage(made);
    });

    it('fails with 1 when the suite passes but coverage is under --coverage-min: the server’s status, through npx', async () => {
      const made = await withScript('background-gate', 'idle');
      const result = await runCommand(made, ['sh', 'ci/test-with-mock.sh']);
      expect(result.exitCode, String(result.all)).toBe(1);
      expect(String(result.all)).toMatch(/contract coverage 0% \(0 of \d+ operations\) is below --coverage-min 10%/);
    });

    it('waits on the health endpoint with curl --retry while the server starts', async () => {
      const made = await project('curl-retry', 'idle');
      const [curl] = docBlocksUnder(DOC, 'When a tool starts the server itself: the background form', 'sh').filter((block) => block.code.startsWith('curl'));
      // Its fixed port, 4010, becomes a free one (another suite may hold 4010); nothing else changes.
      const port = await freePort();
      const waiting = runCommand(made, [...CI_BASH, curl!.code.replaceAll('4010', String(port))]);
      const server = runCommand(made, ['npx', 'social-gateway-mock', '--port', String(port), '--ready-file', 'mock-ready.json']);
      const answered = await waiting;
      expect(answered.exitCode, String(answered.all)).toBe(0);
      expect(JSON.parse(String(answered.all))).toMatchObject({ status: 'ok' });
      // Stopped as the doc says: the server's own pid, from the ready file, waited for (it is written just after the first answer).
      const readyFile = join(made.dir, 'mock-ready.json');
      await vi.waitFor(() => expect(existsSync(readyFile)).toBe(true), { timeout: 10_000, interval: 50 });
      const { pid } = JSON.parse(readFileSync(readyFile, 'utf8')) as { pid: number };
      process.kill(pid, 'SIGTERM');
      expect((await server).exitCode).toBe(0);
    });
  });
});

