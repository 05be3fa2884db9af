import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/lib/package-root.js';

/** What `npm pack` would put in the tarball, listed without building (--ignore-scripts). */
interface PackListing {
  files: Array<{ path: string }>;
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  hasInstallScript?: boolean;
}

/** The packages an integrator's `npm install` gets from us that run a script at install time. */
function productionInstallScripts(lock: { packages: Record<string, LockEntry> }): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !entry.dev && !entry.devOptional && entry.hasInstallScript === true)
    .map(([path]) => path);
}

let files: string[];
beforeAll(async () => {
  const { stdout } = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packagePath() });
  files = (JSON.parse(stdout) as PackListing[])[0]!.files.map((file) => file.path);
});

describe('npm pack', () => {
  it.each(['LICENSE', 'README.md', 'package.json', 'openapi.yaml', 'control.yaml', 'scenarios/scenario.schema.json', 'fixtures/default.yaml'])('ships %s', (path) => {
    expect(files).toContain(path);
  });

  it('ships the ready-made scenarios and the docs', () => {
    expect(files.filter((path) => /^scenarios\/[\w-]+\.yaml$/.test(path)).length).toBeGreaterThan(0);
    for (const doc of ['docs/scenarios.md', 'docs/webhooks.md', 'docs/coverage.md', 'docs/mcp.md', 'docs/decisions/0010-packaging.md', 'docs/screenshots/requests.png']) {
      expect(files).toContain(doc);
    }
  });

  // Written for contributors, it stays in the repository; the README links it there
  // (docs/decisions/0040-a-whole-package.md; test/package/shipped-docs.test.ts walks every link).
  it('leaves CONTRIBUTING.md in the repository', () => {
    expect(files).not.toContain('CONTRIBUTING.md');
  });

  it('ships neither the tests, the benchmarks, the scripts nor the TypeScript sources', () => {
    expect(files.filter((path) => /^(test|bench|scripts|src)\//.test(path))).toEqual([]);
  });

  // The build turns them off (tsconfig.build.json) and `files` leaves out any stale one: a map
  // would point at src/*.ts, which does not ship (docs/decisions/0010-packaging.md).
  it('ships no source map', () => {
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
  });
});

describe('package.json', () => {
  const manifest = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as Record<string, unknown>;

  it('says where the project lives', () => {
    expect(manifest['repository']).toEqual({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/.+\.git$/) });
    expect(manifest['homepage']).toMatch(/^https:\/\//);
    expect(manifest['bugs']).toEqual({ url: expect.stringMatching(/^https:\/\/.+\/issues$/) });
    expect(manifest['license']).toBe('MIT');
  });

  it('has keywords to be found by', () => {
    expect(manifest['keywords']).toEqual(expect.arrayContaining(['mock', 'openapi', 'contract-testing']));
  });

  // One build (scripts/build.ts) for `npm run build`, `npm start` and `npm pack`; the package gets
  // a clean one (docs/decisions/0032-npm-start-that-starts.md).
  const scripts = manifest['scripts'] as Record<string, string>;
  const build = readFileSync(packagePath('scripts', 'build.ts'), 'utf8');

  it('builds with one script, wherever the build runs', () => {
    expect(scripts['build']).toBe('node --import tsx scripts/build.ts');
    expect(scripts['prestart']).toBe(scripts['build']);
    expect(scripts['prepack']).toBe(`${scripts['build']} --clean`);
  });

  it('copies the docs page assets in its build', () => {
    expect(build).toContain("await import('../src/docs/docs-page.js')");
    expect(build).toContain('write(join(BUILT_DOCS_ASSETS, file)');
    expect(manifest['files']).toContain('dist/docs-assets');
  });

  // The dashboard's code (tsc, its own program) and Preact's modules ship in dist/dashboard:
  // nothing is fetched by the page at run time (docs/decisions/0021-dashboard.md).
  it('compiles the dashboard and copies its assets in its build', () => {
    expect(build).toContain("compile('src/dashboard/ui/tsconfig.json'");
    expect(build).toContain('write(join(BUILT_DASHBOARD_VENDOR, name)');
    expect(manifest['files']).toContain('dist/dashboard');
  });
});

describe('installing the package', () => {
  it('runs no script of its own: npm lists prepare among install scripts for a tarball, so the build runs at prepack', () => {
    const { scripts } = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(Object.keys(scripts).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
    expect(scripts['prepack']).toBe('node --import tsx scripts/build.ts --clean');
  });

  it('runs no install script of any production dependency', () => {
    const lock = JSON.parse(readFileSync(packagePath('package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    expect(productionInstallScripts(lock)).toEqual([]);
  });

  it.each([
    [{ 'node_modules/@scarf/scarf': { hasInstallScript: true } }, ['node_modules/@scarf/scarf']],
    [{ 'node_modules/@scarf/scarf': { hasInstallScript: true, dev: true } }, []],
    [{ 'node_modules/esbuild': { hasInstallScript: true, devOptional: true } }, []],
    [{ '': { hasInstallScript: true }, 'node_modules/express': {} }, []],
  ])('the lockfile walk finds %j as %j', (packages, expected) => {
    expect(productionInstallScripts({ packages })).toEqual(expected);
  });
});
