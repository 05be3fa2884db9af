import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bannerUrl, markdownBlocks, runCommand, useRecipeProjects, type DocBlock } from '../helpers/recipes.js';

// The README's "Point your client at it", run as written in a project that installed the packed
// package: the curl lines against `npx social-gateway-mock`, and the in-process start. Its
// install-and-run lines above are test/package/readme-recipe.test.ts.

const SECTION = 'Point your client at it';

const project = useRecipeProjects('readme');

function block(lang: string): DocBlock {
  const found = markdownBlocks('README.md').filter((entry) => entry.heading === SECTION && entry.lang === lang);
  expect(found, `one ${lang} block under "## ${SECTION}"`).toHaveLength(1);
  return found[0]!;
}

describe(`the README's "${SECTION}"`, { timeout: 120_000 }, () => {
  it('the curl lines answer JSON from npx social-gateway-mock', async () => {
    const made = await project('curl');
    // The server's default port, 4010, may be held by another suite here: the environment moves it.
    const server = made.run('npx', ['social-gateway-mock'], { env: { SOCIAL_GATEWAY_MOCK_PORT: '0' }, detached: true, reject: false, all: true });
    try {
      const url = await bannerUrl(server);
      const { code } = block('sh');
      expect(code).toContain('http://127.0.0.1:4010/');
      // One line at a time: curl ends its output without a newline, so two answers would run together.
      const answers: unknown[] = [];
      for (const line of code.trim().split('\n')) {
        const result = await runCommand(made, ['bash', '-eo', 'pipefail', '-c', line.replaceAll('http://127.0.0.1:4010', url)]);
        expect(result.exitCode, String(result.all)).toBe(0);
        answers.push(JSON.parse(String(result.stdout)));
      }
      expect(answers).toEqual([{ connections: expect.any(Array) }, expect.objectContaining({ data: expect.any(Array) })]);
      expect((answers[1] as { data: unknown[] }).data).toHaveLength(5);
    } finally {
      // Ctrl-C, as the person who started it would.
      process.kill(-server.pid!, 'SIGINT');
      await server;
    }
  });

  it('the in-process start runs as written, and serves the API where its comment says', async () => {
    const made = await project('in-process');
    const { code } = block('ts');
    // Plain JavaScript too: run by node itself as an ES module, the way the scratch project is set up.
    await writeFile(join(made.dir, 'as-written.mjs'), code);
    const asWritten = await runCommand(made, ['node', 'as-written.mjs']);
    expect(asWritten.exitCode, String(asWritten.all)).toBe(0);

    const comment = /^\/\/ \.\.\. point the client at `\$\{url\}\/v1` \.\.\.$/m;
    expect(code).toMatch(comment);
    const call = "const res = await fetch(`${url}/v1/connections`, { headers: { 'x-api-key': 'sgw_test_default' } });\nconsole.log(res.status);";
    await writeFile(join(made.dir, 'with-a-call.mjs'), code.replace(comment, call));
    const withCall = await runCommand(made, ['node', 'with-a-call.mjs']);
    expect(withCall.exitCode, String(withCall.all)).toBe(0);
    expect(String(withCall.stdout).trim()).toBe('200');
  });
});
