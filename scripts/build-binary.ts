import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';
import { inject } from 'postject';
import { packagePath } from '../src/lib/package-root.js';
import { SEA_MANIFEST, type SeaManifest } from '../src/lib/sea-assets.js';

/*
 * `npm run build:binary` (after `npm run build`): the single executable of
 * docs/decisions/0055-single-executable-and-image.md. The server's code bundled by esbuild into one
 * CommonJS file (a Node 20 single executable runs CommonJS only), the package's files as SEA
 * assets, both in a blob Node makes (--experimental-sea-config) and postject injects into a copy of
 * the Node binary running this script. Writes release/social-gateway-mock-<os>-<arch>[.exe].
 */

const RELEASE = packagePath('release');
const WORK = join(RELEASE, '.work');

/** The executable for this machine, as the release names it. */
function executableName(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'win' : platform;
  return `social-gateway-mock-${os}-${arch}${platform === 'win32' ? '.exe' : ''}`;
}

/** The fuse Node's binary carries until a blob is injected (the SEA docs' postject line). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** What the package reads from its own folder at run time (packagePath): the same files `npm pack` ships, less the code. */
const ASSET_ROOTS = ['package.json', 'README.md', 'LICENSE', 'openapi.yaml', 'control.yaml', 'fixtures', 'scenarios', 'docs', 'dist/src/contracts.json', 'dist/docs-assets', 'dist/dashboard'];
/** Read by nothing at run time: the screenshots (docs/dashboard.md's pictures) and source maps would only weigh. */
const LEFT_OUT = [/\.map$/, /^docs\/screenshots\//];

function filesUnder(path: string): string[] {
  const full = packagePath(path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(packagePath(), join(entry.parentPath, entry.name)).split(sep).join('/'));
}

function assetFiles(): string[] {
  return ASSET_ROOTS.flatMap(filesUnder)
    .filter((file) => !LEFT_OUT.some((pattern) => pattern.test(file)))
    .sort();
}

async function bundle(out: string): Promise<void> {
  const result = await build({
    entryPoints: [packagePath('src', 'bin.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    legalComments: 'none',
    // Loaded only to compile the dashboard from source (src/dashboard/router.ts), which a build never does.
    external: ['typescript'],
    // import.meta is empty in a CommonJS bundle: the modules that ask for their own URL get the executable's.
    define: { 'import.meta.url': '__sgm_import_meta_url' },
    banner: { js: 'var __sgm_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
    logLevel: 'warning',
  });
  // A hashbang is a syntax error anywhere but the first line of a file, and the SEA wraps the script.
  const code = result.outputFiles[0]!.text.replace(/^#!.*\n/, '');
  writeFileSync(out, code);
}

async function main(): Promise<void> {
  const started = performance.now();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const script = join(WORK, 'bundle.cjs');
  await bundle(script);

  const files = assetFiles();
  const digest = createHash('sha256');
  for (const file of files) digest.update(`${file}\0`).update(readFileSync(packagePath(file))).update('\0');
  digest.update(readFileSync(script));
  const manifest: SeaManifest = { id: digest.digest('hex').slice(0, 16), files };
  const manifestFile = join(WORK, SEA_MANIFEST);
  writeFileSync(manifestFile, JSON.stringify(manifest));

  const blob = join(WORK, 'sea.blob');
  const config = {
    main: script,
    output: blob,
    disableExperimentalSEAWarning: true,
    // V8's compiled code of the bundle: a start without it compiles 4 MB of JavaScript first.
    useCodeCache: true,
    assets: Object.fromEntries([[SEA_MANIFEST, manifestFile], ...files.map((file) => [file, packagePath(file)])]),
  };
  const configFile = join(WORK, 'sea-config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  execFileSync(process.execPath, ['--experimental-sea-config', configFile], { stdio: 'inherit' });

  const target = join(RELEASE, executableName());
  rmSync(target, { force: true });
  copyFileSync(process.execPath, target);
  chmodSync(target, 0o755);
  if (process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', target], { stdio: 'inherit' });
  await inject(target, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE, ...(process.platform === 'darwin' && { machoSegmentName: 'NODE_SEA' }) });
  // An arm64 Mac runs no unsigned code: an ad-hoc signature, as Node's SEA docs do.
  if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', target], { stdio: 'inherit' });
  rmSync(WORK, { recursive: true, force: true });
  const size = statSync(target).size;
  console.log(`${relative(packagePath(), target)}: ${(size / 1e6).toFixed(1)} MB, ${files.length} files inside, built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
