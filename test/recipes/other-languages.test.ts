import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScratchProject } from '../helpers/packed.js';
import { bannerUrl, CI_BASH, docBlocksUnder, docFile, runCommand, useRecipeProjects } from '../helpers/recipes.js';

// docs/other-languages.md, run as written: the curl walk-through (under `run --`, and by hand
// against a server started in "another terminal" and stopped with Ctrl-C) and the Python suite.

const DOC = 'other-languages.md';
const WALKTHROUGH = 'A walk-through with curl';
const PYTHON = 'Python, with the standard library only';
const PYTEST = 'Python, with pytest: a workspace per test';

const project = useRecipeProjects('other');

/** The sh block of a section whose command starts with `prefix`. */
function command(heading: string, prefix: string): string {
  const found = docBlocksUnder(DOC, heading, 'sh').filter((block) => block.code.startsWith(prefix));
  expect(found, `one block starting with ${prefix}`).toHaveLength(1);
  return found[0]!.code.trim();
}

function report(made: ScratchProject): string {
  const path = join(made.dir, 'coverage.md');
  expect(existsSync(path), 'coverage.md written').toBe(true);
  return readFileSync(path, 'utf8');
}

/** What the walk-through prints at each step that shows a status: scheduled, then published. */
function expectWalkthroughOutput(output: string): void {
  const statuses = [...output.matchAll(/"status":"(\w+)"/g)].map((match) => match[1]);
  // health's "ok", the post and its destination scheduled, then both published.
  expect(statuses).toEqual(['ok', 'scheduled', 'scheduled', 'published', 'published']);
  expect(output).toMatch(/"ran":\[\{[^\]]*"kind":"post\.start"/);
  expect(output).toContain('| Operations | 3 | 3 | 100% |');
}

describe('docs/other-languages.md', { timeout: 120_000 }, () => {
  describe('the curl walk-through', () => {
    const walkthrough = docFile(DOC, 'walkthrough.sh');

    it('runs unattended under run --: every step answers, the post publishes, coverage.md is written', async () => {
      const made = await project('walkthrough');
      await writeFile(join(made.dir, 'walkthrough.sh'), walkthrough);
      const line = command(WALKTHROUGH, 'npx social-gateway-mock run');
      // The server's default port, 4010, may be held by another suite here: the environment moves it.
      const result = await runCommand(made, [...CI_BASH, line], { SOCIAL_GATEWAY_MOCK_PORT: '0' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expectWalkthroughOutput(String(result.stdout));
      expect(report(made)).toContain('| `createPost` | `POST /v1/posts` | 1 |');
    });

    it('fails under run -- when a step is refused (sh -e and --fail-with-body)', async () => {
      const made = await project('walkthrough-refused');
      // The same walk-through against a server whose control plane wants a token the script does not send.
      await writeFile(join(made.dir, 'walkthrough.sh'), walkthrough);
      const line = command(WALKTHROUGH, 'npx social-gateway-mock run').replace(' run ', ' run --control-token not-sent ');
      const result = await runCommand(made, [...CI_BASH, line], { SOCIAL_GATEWAY_MOCK_PORT: '0' });
      expect(result.exitCode).toBe(22);
      // The health check is open; creating the workspace is the token's (403), inside $(...), so curl's own line says it.
      expect(String(result.all), String(result.all)).toContain('returned error: 403');
    });

    it('runs by hand against the server of "another terminal", which Ctrl-C stops, writing coverage.md', async () => {
      const made = await project('walkthrough-by-hand');
      const start = command(WALKTHROUGH, 'npx social-gateway-mock --');
      const server = made.run('bash', ['-c', start], { env: { SOCIAL_GATEWAY_MOCK_PORT: '0' }, detached: true, reject: false, all: true });
      const url = await bannerUrl(server);
      // The terminal's shell: no -e, as a person pastes the steps. The URL the script defaults to
      // (port 4010) is the server's, through the variable the script reads first.
      const steps = await runCommand(made, ['bash', '-c', walkthrough], { SOCIAL_GATEWAY_MOCK_URL: url });
      expect(steps.exitCode, String(steps.all)).toBe(0);
      expectWalkthroughOutput(String(steps.stdout));
      // Ctrl-C: SIGINT to the terminal's foreground process group.
      process.kill(-server.pid!, 'SIGINT');
      await server;
      expect(report(made)).toContain('| `getPost` | `GET /v1/posts/{id}` | 1 |');
    });
  });

  describe('the Python suite', () => {
    const suite = docFile(DOC, 'test_publishing.py');
    const line = command(PYTHON, 'npx social-gateway-mock run');

    async function pythonProject(name: string): Promise<ScratchProject> {
      const made = await project(name);
      await writeFile(join(made.dir, 'test_publishing.py'), suite);
      return made;
    }

    it('passes under run --, each test in a workspace of its own, and coverage.md is written', async () => {
      const made = await pythonProject('python');
      const result = await runCommand(made, [...CI_BASH, line], { SOCIAL_GATEWAY_MOCK_PORT: '0' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.stderr)).toMatch(/Ran 2 tests in [\d.]+s\n\nOK/);
      const coverage = report(made);
      for (const row of ['| `connectAccount` | `POST /v1/connections/{platform}/connect` | 2 |', '| `createPost` | `POST /v1/posts` | 2 |', '| `getPost` | `GET /v1/posts/{id}` | 1 |']) {
        expect(coverage).toContain(row);
      }
    });

    it('sends the control token run -- hands it when the server has one', async () => {
      const made = await pythonProject('python-token');
      const result = await runCommand(made, [...CI_BASH, line.replace(' run ', ' run --control-token ci-secret ')], { SOCIAL_GATEWAY_MOCK_PORT: '0' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.stderr)).toMatch(/Ran 2 tests/);
    });

    it("fails with the suite's status when a test fails", async () => {
      const made = await pythonProject('python-failing');
      // The same suite with one expectation off by a second.
      await writeFile(join(made.dir, 'test_publishing.py'), suite.replace('"2026-03-02T10:00:03.000Z"', '"2026-03-02T10:00:04.000Z"'));
      const result = await runCommand(made, [...CI_BASH, line], { SOCIAL_GATEWAY_MOCK_PORT: '0' });
      expect(result.exitCode).toBe(1);
      expect(String(result.stderr)).toMatch(/FAILED \(failures=1\)/);
      report(made);
    });
  });

  describe('the pytest suite', () => {
    const line = command(PYTEST, 'npx social-gateway-mock run');

    async function pytestProject(name: string, conftest = docFile(DOC, 'conftest.py')): Promise<ScratchProject> {
      const made = await project(name);
      await writeFile(join(made.dir, 'conftest.py'), conftest);
      await writeFile(join(made.dir, 'test_posts.py'), docFile(DOC, 'test_posts.py'));
      return made;
    }

    it('passes under run --, each test in a workspace of its own, and coverage.md is written', async () => {
      const made = await pytestProject('pytest');
      const result = await runCommand(made, [...CI_BASH, line], { SOCIAL_GATEWAY_MOCK_PORT: '0' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.stdout)).toMatch(/3 passed in [\d.]+s/);
      const coverage = report(made);
      for (const row of ['| `listConnections` | `GET /v1/connections` | 2 |', '| `createPost` | `POST /v1/posts` | 2 |', '| `getPost` | `GET /v1/posts/{id}` | 1 |']) {
        expect(coverage).toContain(row);
      }
    });

    it('fails when the fixture world keeps its pending work: its own posts run as the clock moves', async () => {
      const conftest = docFile(DOC, 'conftest.py');
      expect(conftest).toContain('        "pending": False,\n');
      const made = await pytestProject('pytest-pending', conftest.replace('        "pending": False,\n', ''));
      const result = await runCommand(made, [...CI_BASH, line], { SOCIAL_GATEWAY_MOCK_PORT: '0' });
      expect(result.exitCode).toBe(1);
      expect(String(result.stdout)).toMatch(/1 failed, 2 passed/);
      expect(String(result.stdout)).toContain('test_a_scheduled_post_publishes_when_its_time_comes');
    });
  });
});
