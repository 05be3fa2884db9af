import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScratchProject } from '../helpers/packed.js';
import { CI_BASH, docBlocksUnder, freePort, recipeDevDependencies, runCommand, useRecipeProjects, writeDocFiles } from '../helpers/recipes.js';

// docs/typescript.md, run as written: each recipe's files (the `<!-- file: project/… -->` blocks)
// written into a scratch project that has the packed package and the recipes' dev dependencies
// installed, then the section's commands after its `npm install -D` line.

const DOC = 'typescript.md';

const newProject = useRecipeProjects('ts');
async function project(name: string, prefix: string): Promise<ScratchProject> {
  const made = await newProject(name);
  await writeDocFiles(DOC, prefix, made.dir);
  return made;
}

/**
 * The section's commands after `npm install -D …`, checking that what it installs is what the
 * scratch project has (the package and the recipes' dev dependencies).
 */
function commandsOf(heading: string): string {
  const [block] = docBlocksUnder(DOC, heading, 'sh');
  const lines = block!.code.trim().split('\n');
  const install = /^npm install -D (.+)$/.exec(lines[0]!);
  expect(install, `the "${heading}" commands start with npm install -D`).not.toBeNull();
  const installed = ['social-gateway-mock', ...recipeDevDependencies().map((spec) => spec.slice(0, spec.lastIndexOf('@')))];
  for (const name of install![1]!.split(/\s+/)) expect(installed).toContain(name);
  return lines.slice(1).join('\n');
}

describe('docs/typescript.md', { timeout: 120_000 }, () => {
  describe('tsconfig.json, ESM and CommonJS', () => {
    it('compiles with tsc and runs, in an ESM project', async () => {
      const made = await project('tsc', 'tsc-project/');
      const result = await runCommand(made, [...CI_BASH, commandsOf('tsconfig.json, ESM and CommonJS')]);
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.stdout).trim()).toBe('200 10');
    });

    // What `npm init -y` makes: the note's claims, each compiled and run.
    it('compiles with the same tsconfig and runs in a CommonJS project, where only .mts may await at the top', async () => {
      const made = await project('tsc-cjs', 'tsc-project/');
      await writeDocFiles(DOC, 'cjs-project/', made.dir);
      expect((await runCommand(made, ['npm', 'pkg', 'set', 'type=commonjs'])).exitCode).toBe(0);
      const compiled = await runCommand(made, [...CI_BASH, 'npx tsc && node dist/check.js']);
      expect(compiled.exitCode, String(compiled.all)).toBe(0);
      expect(String(compiled.stdout).trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const topLevelAwait = "const { EVENT_NAMES } = await import('social-gateway-mock');\nconsole.log(EVENT_NAMES.length);\n";
      await writeFile(join(made.dir, 'top-level.mts'), topLevelAwait);
      const mts = await runCommand(made, [...CI_BASH, 'npx tsc && node dist/top-level.mjs']);
      expect(mts.exitCode, String(mts.all)).toBe(0);
      expect(String(mts.stdout).trim()).toBe('22');
      await writeFile(join(made.dir, 'top-level.ts'), topLevelAwait);
      const ts = await runCommand(made, ['npx', 'tsc']);
      expect(ts.exitCode).not.toBe(0);
      expect(String(ts.stdout)).toContain('top-level.ts(1,25): error TS1309: The current file is a CommonJS module and cannot use');
    });
  });

  describe('the vitest kit (with the types example)', () => {
    it('passes with npx vitest run, a server per worker and a workspace per test', async () => {
      const made = await project('vitest', 'vitest-project/');
      const result = await runCommand(made, [...CI_BASH, commandsOf('The vitest kit')], { CI: 'true' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.all)).toMatch(/Tests\s+4 passed \(4\)/);
    });

    it('passes under run --, on the server run started', async () => {
      const made = await project('vitest-run', 'vitest-project/');
      const result = await runCommand(made, [...CI_BASH, 'npx social-gateway-mock run --port 0 --coverage-report coverage.md -- npx vitest run'], { CI: 'true' });
      expect(result.exitCode, String(result.all)).toBe(0);
      // The tests' requests reached run's server: its report counts them.
      expect(readFileSync(join(made.dir, 'coverage.md'), 'utf8')).toContain('| `createPost` | `POST /v1/posts` | 2 |');
    });
  });

  describe('jest', () => {
    it('passes, with globalSetup starting one server and a workspace per test', async () => {
      const made = await project('jest', 'jest-project/');
      const result = await runCommand(made, [...CI_BASH, commandsOf('jest')], { CI: 'true' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.all)).toMatch(/Tests:\s+3 passed, 3 total/);
    });

    it('passes under run --, on the server run started', async () => {
      const made = await project('jest-run', 'jest-project/');
      const result = await runCommand(made, [...CI_BASH, 'NODE_OPTIONS=--experimental-vm-modules npx social-gateway-mock run --port 0 --coverage-report coverage.md -- npx jest'], { CI: 'true' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(existsSync(join(made.dir, 'coverage.md'))).toBe(true);
      expect(readFileSync(join(made.dir, 'coverage.md'), 'utf8')).toContain('| `listComments` | `GET /v1/comments` | 1 |');
    });
  });

  describe('Playwright', () => {
    it('passes, webServer starting the mock and stopping it after', async () => {
      const made = await project('playwright', 'playwright-project/');
      // The doc's port, 4010, may be held by another suite here: the files use a free one instead.
      const port = String(await freePort());
      for (const file of ['playwright.config.ts', 'e2e/mock.ts']) {
        const path = join(made.dir, file);
        const source = readFileSync(path, 'utf8');
        expect(source).toContain('4010');
        await writeFile(path, source.replaceAll('4010', port));
      }
      const result = await runCommand(made, [...CI_BASH, commandsOf('Playwright')], { CI: 'true' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.all)).toMatch(/2 passed/);
    });
  });

  describe('retries and back-off on the virtual clock', () => {
    it('passes with clockSleep: Retry-After waited out and a back-off given up, on a frozen clock', async () => {
      const made = await project('retry', 'retry-project/');
      const result = await runCommand(made, [...CI_BASH, commandsOf('Retries and back-off on the virtual clock')], { CI: 'true' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.all)).toMatch(/Tests\s+2 passed \(2\)/);
    });

    it('fails when the client sleeps for real instead: the frozen clock never leaves the 429 window', async () => {
      const made = await project('retry-real-sleep', 'retry-project/');
      // The same tests with the client's own sleep (setTimeout) in place of clockSleep.
      const path = join(made.dir, 'test', 'retry.test.ts');
      await writeFile(path, readFileSync(path, 'utf8').replace('return sleep(ms);', 'return new Promise((resolve) => setTimeout(resolve, 1));'));
      const result = await runCommand(made, [...CI_BASH, commandsOf('Retries and back-off on the virtual clock')], { CI: 'true' });
      expect(result.exitCode).toBe(1);
      expect(String(result.all)).toContain('GET /connections answered 429 (attempt 5)');
    });
  });

  describe('a typed client with openapi-fetch', () => {
    it('type-checks against the shipped types and passes', async () => {
      const made = await project('typed-client', 'typed-client-project/');
      const result = await runCommand(made, [...CI_BASH, commandsOf('A typed client with openapi-fetch')], { CI: 'true' });
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.all)).toMatch(/Tests\s+2 passed \(2\)/);
    });

    it('fails tsc on a path the contract does not have', async () => {
      const made = await project('typed-client-wrong-path', 'typed-client-project/');
      const path = join(made.dir, 'test', 'posts.test.ts');
      await writeFile(path, readFileSync(path, 'utf8').replace("gateway.GET('/v1/connections')", "gateway.GET('/v1/connection')"));
      const result = await runCommand(made, [...CI_BASH, commandsOf('A typed client with openapi-fetch')], { CI: 'true' });
      expect(result.exitCode).not.toBe(0);
      // tsc names the line of the call; vitest never ran.
      const line = readFileSync(path, 'utf8').split('\n').findIndex((text) => text.includes("'/v1/connection'")) + 1;
      expect(String(result.all)).toMatch(new RegExp(`test/posts\\.test\\.ts\\(${line},\\d+\\): error TS\\d+`));
      expect(String(result.all)).not.toMatch(/Tests\s+\d+ passed/);
    });
  });

  describe('the control client', () => {
    it('the time-travel script prints what the doc says', async () => {
      const made = await project('script', 'script-project/');
      const result = await runCommand(made, ['node', 'time-travel.mjs']);
      expect(result.exitCode, String(result.all)).toBe(0);
      expect(String(result.stdout).trim().split('\n')).toEqual([expect.stringMatching(/^2026-03-02T11:00:00\.000Z \d+ jobs ran$/), 'comment.received true', '22 event names']);
    });
  });
});
