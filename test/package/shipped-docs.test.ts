import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { execa, execaSync } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';
import { headingAnchors, markdownLinks, readable } from '../helpers/markdown-links.js';
import { packTarball } from '../helpers/packed.js';

// The README and docs as a user reads them: from the packed package, in node_modules or on npm's
// page. Every link and image must resolve inside the package or be an absolute URL, and a page
// never sends its reader to a file that stays in the repository unless it links it there
// (docs/decisions/0040-a-whole-package.md).

/** `https://github.com/<owner>/<name>`, from package.json's `repository`. */
const REPOSITORY = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { repository: { url: string } }).repository.url
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');
/**
 * A link into the repository: a file (`blob`) or a folder (`tree`) of the default branch, or of a
 * commit for one that has since moved (a decision telling its history).
 */
const REPOSITORY_LINK = new RegExp(`^${REPOSITORY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:blob|tree)/(main|[0-9a-f]{40})/([^#?]+)(?:#(.*))?$`);

/** Whether the repository holds `path` on its default branch (this checkout) or at `commit`. */
function inRepository(ref: string, path: string): boolean {
  if (ref === 'main') return existsSync(packagePath(path));
  // A commit of the published history: one the default branch has.
  const git = (...args: string[]) => execaSync('git', args, { cwd: packagePath(), reject: false }).exitCode === 0;
  return git('merge-base', '--is-ancestor', ref, 'HEAD') && git('cat-file', '-e', `${ref}:${path}`);
}

/**
 * What a reader could look for in vain: each folder of the repository that the package leaves out
 * (the shortest one: `src/`, `test/`, `docs/decisions/`) and each page it leaves out (CONTRIBUTING.md).
 */
function repositoryOnly(packageRoot: string): string[] {
  const tracked = execaSync('git', ['ls-files'], { cwd: packagePath() }).stdout.split('\n').filter(Boolean);
  const missing = new Set<string>();
  for (const path of tracked) {
    const segments = path.split('/');
    const depth = segments.findIndex((_, i) => !existsSync(join(packageRoot, ...segments.slice(0, i + 1))));
    if (depth === -1) continue;
    if (depth < segments.length - 1) missing.add(`${segments.slice(0, depth + 1).join('/')}/`);
    else if (path.endsWith('.md')) missing.add(path);
  }
  return [...missing].sort();
}

function markdownFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md') && !path.split(sep).includes('node_modules'))
    .sort();
}

/** What is wrong with one link of `page` (a path inside `root`), or undefined when it resolves. */
function brokenLink(root: string, page: string, target: string): string | undefined {
  const repository = REPOSITORY_LINK.exec(target);
  if (repository) {
    const [, ref, path, anchor] = repository as unknown as [string, string, string, string | undefined];
    if (!inRepository(ref, decodeURIComponent(path))) return 'names no file of the repository';
    if (anchor !== undefined && ref === 'main' && !headingAnchors(readFileSync(packagePath(path), 'utf8')).has(anchor)) return `has no heading #${anchor}`;
    return undefined;
  }
  if (/^[a-z][\w+.-]*:/i.test(target)) return undefined;
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? join(root, page) : resolve(dirname(join(root, page)), decodeURIComponent(path));
  if (relative(root, file).startsWith('..')) return 'points outside the package';
  if (!existsSync(file)) return 'is not in the package';
  if (anchor !== undefined && file.endsWith('.md') && statSync(file).isFile() && !headingAnchors(readFileSync(file, 'utf8')).has(anchor)) {
    return `has no heading #${anchor}`;
  }
  return undefined;
}

/** Each mention of a repository-only path on a page, outside the absolute links that take a reader there. */
function repositoryPaths(markdown: string, paths: string[]): string[] {
  if (paths.length === 0) return [];
  const names = paths.map((path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  // Blanked, not removed, so that each mention keeps its line.
  const unlinked = readable(markdown).replace(/\[(?:[^\]]|\][^(])*\]\(https?:[^)]+\)/g, (link) => link.replace(/[^\n]/g, ' '));
  return [...unlinked.matchAll(new RegExp(`(?<![\\w./-])(?:${names})(?:[^\\s\`'")|,;]*[^\\s\`'")|,;.:])?`, 'g'))].map(
    (match) => `line ${unlinked.slice(0, match.index).split('\n').length}: ${match[0]}`,
  );
}

let root: string;
let extracted: string;
let pages: string[];
beforeAll(async () => {
  extracted = await mkdtemp(join(tmpdir(), 'sgw-shipped-docs-'));
  await execa('tar', ['-xzf', await packTarball(), '-C', extracted]);
  root = join(extracted, 'package');
  pages = markdownFiles(root);
}, 600_000);
afterAll(async () => {
  if (extracted) await rm(extracted, { recursive: true, force: true });
});

describe('the docs in the packed package', () => {
  it('are the README and docs/, and nothing written for contributors only', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain(join('docs', 'typescript.md'));
    expect(pages).not.toContain('CONTRIBUTING.md');
  });

  it('link and show only what the package holds, or absolute URLs', () => {
    const broken = pages.flatMap((page) =>
      markdownLinks(readFileSync(join(root, page), 'utf8')).flatMap(({ target, line }) => {
        const problem = brokenLink(root, page, target);
        return problem ? [`${page}:${line} ${target} ${problem}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('send no reader into the sources, tests or scripts, which stay in the repository, but by a link there', () => {
    const repository = repositoryOnly(root);
    expect(repository).toEqual(expect.arrayContaining(['src/', 'test/', 'bench/', 'scripts/', 'CONTRIBUTING.md']));
    const mentions = pages.flatMap((page) => repositoryPaths(readFileSync(join(root, page), 'utf8'), repository).map((mention) => `${page} ${mention}`));
    expect(mentions).toEqual([]);
  });

  it("link CONTRIBUTING.md in the repository from the README", () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(`(${REPOSITORY}/blob/main/CONTRIBUTING.md)`);
  });
});

// The walk itself, on pages made up to break each rule once.
describe('the walk', () => {
  const page = [
    '# A page',
    '',
    '![shot](screenshots/missing.png) [ok](#a-page) [gone](#nowhere) [site](https://example.com/x)',
    '[there](other.md#a-page) [up](../../etc/passwd)',
    '',
    '```sh',
    'cat [not](a-link.md)',
    '```',
    '<!-- [not](a-link-either.md) -->',
    '<img src="screenshots/also-missing.png" alt="">',
    '[ref]: missing-ref.md',
  ].join('\n');

  it('finds inline links, images, references and HTML, but none in code or comments', () => {
    expect(markdownLinks(page).map((link) => link.target)).toEqual([
      'screenshots/missing.png',
      '#a-page',
      '#nowhere',
      'https://example.com/x',
      'other.md#a-page',
      '../../etc/passwd',
      'screenshots/also-missing.png',
      'missing-ref.md',
    ]);
  });

  it("spells a heading's anchor as GitHub does", () => {
    expect([...headingAnchors('# The dashboard on a full journal (issue 20, 2026-11-25)\n## `run --`: the CI line\n## Amendments: review\n## Amendments: review')]).toEqual([
      'the-dashboard-on-a-full-journal-issue-20-2026-11-25',
      'run----the-ci-line',
      'amendments-review',
      'amendments-review-1',
    ]);
  });

  it('names each broken one', () => {
    expect(brokenLink(root, 'README.md', 'docs/screenshots/none.png')).toBe('is not in the package');
    expect(brokenLink(root, 'README.md', '#no-such-heading')).toBe('has no heading #no-such-heading');
    expect(brokenLink(root, 'README.md', '../../outside.md')).toBe('points outside the package');
    expect(brokenLink(root, 'README.md', `${REPOSITORY}/blob/main/src/no-such-file.ts`)).toBe('names no file of the repository');
    expect(brokenLink(root, 'README.md', `${REPOSITORY}/blob/main/CONTRIBUTING.md#no-such-heading`)).toBe('has no heading #no-such-heading');
    expect(brokenLink(root, 'README.md', `${REPOSITORY}/blob/${'0'.repeat(40)}/src/server.ts`)).toBe('names no file of the repository');
    expect(brokenLink(root, 'README.md', `${REPOSITORY}/blob/main/src/server.ts`)).toBeUndefined();
    expect(brokenLink(root, 'README.md', `${REPOSITORY}/blob/main/CONTRIBUTING.md#tests`)).toBeUndefined();
    expect(brokenLink(root, 'docs/ci.md', 'typescript.md')).toBeUndefined();
  });

  it('finds a repository-only path in prose, code and commands, but not in a link to the repository or under dist/', () => {
    const text = 'See `src/http/`, test/api/x.test.ts and\n```sh\nnode --import tsx src/bin.ts\n```\n[`src/server.ts`](https://github.com/o/n/blob/main/src/server.ts) node dist/src/bin.js';
    expect(repositoryPaths(text, ['src/', 'test/'])).toEqual(['line 1: src/http/', 'line 1: test/api/x.test.ts', 'line 3: src/bin.ts']);
  });
});
