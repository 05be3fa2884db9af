import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { scratchProject, type ScratchProject } from '../helpers/packed.js';
import { expectNoProcessLeft } from '../helpers/process.js';

// The README's own first recipe, read from the README at test time (so the two cannot drift),
// run in a project that installed the packed package, with a test suite of its own.

/** The commands of the first `sh` block under a README heading. */
function readmeCommands(heading: string): string[] {
  const readme = readFileSync(packagePath('README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`\n## ${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`README has no sh block under "## ${heading}"`);
  return block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '');
}

/** A test suite that calls the mock the way `run` tells it to, and fails when asked to. */
const CLIENT_TEST = `
const base = process.env.SOCIAL_GATEWAY_MOCK_URL;
const key = process.env.SOCIAL_GATEWAY_MOCK_API_KEY;
const res = await fetch(base + '/v1/connections', { headers: { 'x-api-key': key } });
if (res.status !== 200) throw new Error('listConnections answered ' + res.status);
const post = await fetch(base + '/v1/posts', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{}' });
if (post.status !== 400) throw new Error('an empty post answered ' + post.status);
if (process.env.FAIL_THE_SUITE) process.exit(1);
console.log('client tests passed');
`;

let project: ScratchProject;
let commands: string[];
beforeAll(async () => {
  commands = readmeCommands('Use it in your project');
  project = await scratchProject('readme-recipe');
  const manifest = JSON.parse(readFileSync(join(project.dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(project.dir, 'package.json'), `${JSON.stringify({ ...manifest, scripts: { test: 'node client.test.js' } }, null, 2)}\n`);
  writeFileSync(join(project.dir, 'client.test.js'), CLIENT_TEST);
}, 240_000);
afterAll(async () => {
  await project?.remove();
});

describe("the README's first recipe, from a project of its own", { timeout: 120_000 }, () => {
  it('is an install and one run line', () => {
    expect(commands[0]).toBe('npm install -D social-gateway-mock');
    expect(commands[1]).toMatch(/^npx social-gateway-mock run .* -- npm test$/);
  });

  it("runs the project's tests against the mock: exit 0, coverage written, nothing left running", async () => {
    // The install is the packed tarball's, made already; the run line as written.
    const result = await project.run('bash', ['-c', commands[1]!], { reject: false });
    expect(result.exitCode, `${String(result.stdout)}\n${String(result.stderr)}`).toBe(0);
    expect(String(result.stdout)).toContain('client tests passed');
    const coverage = readFileSync(join(project.dir, 'coverage.md'), 'utf8');
    expect(coverage).toMatch(/`listConnections` \| `GET \/v1\/connections` \| 1 \|/);
    await expectNoProcessLeft(project.dir);
  });

  it("fails the job with the tests' status when they fail, still writing coverage", async () => {
    const result = await project.run('bash', ['-c', `rm -f coverage.md && ${commands[1]!}`], { reject: false, env: { FAIL_THE_SUITE: '1' } });
    expect(result.exitCode).toBe(1);
    expect(existsSync(join(project.dir, 'coverage.md'))).toBe(true);
    await expectNoProcessLeft(project.dir);
  });
});
