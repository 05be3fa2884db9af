import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { execa, type Options, type ResultPromise } from 'execa';
import { packagePath } from '../../src/lib/package-root.js';
import { processAlive } from './process.js';

/**
 * The product as a user gets it: the tarball `npm pack` makes, installed into a project of its
 * own. For tests that run `npx social-gateway-mock` and the README's recipes exactly as written.
 *
 * Both steps are slow (a build, an install), so both are cached on disk and shared by every
 * test file and vitest worker: the tarball per state of the sources, the installed project per
 * tarball and extra dev dependencies. Each is made under a lock (a directory, created atomically)
 * and moved into place by a rename, so two workers asking at once make it once and neither can see
 * half of it.
 */

/** What the tarball is built from; a change to any of these makes a new one. */
const SOURCES = ['src', 'scripts', 'openapi.yaml', 'control.yaml', 'package.json', 'package-lock.json', 'fixtures', 'scenarios', 'docs', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'CONTRIBUTING.md', 'LICENSE'];
const PACK_CACHE = packagePath('node_modules', '.cache', 'sgw-pack');
const SCRATCH_CACHE = join(tmpdir(), 'sgw-scratch-cache');
/** Longest a build or an install may take before a waiting worker gives up. */
const MAKE_TIMEOUT_MS = 600_000;
/** Default bound of a command run in a scratch project. */
const RUN_TIMEOUT_MS = 120_000;

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The source files, tracked or new (not ignored), as they are in the working tree: a test run
 * while developing checks the change being made. With SGW_PACK_REF set (e.g. `HEAD`), the files
 * of that commit instead, for a working tree shared with unfinished work.
 */
async function sourceFiles(): Promise<{ ref: string | undefined; files: string[] }> {
  const ref = process.env['SGW_PACK_REF'] || undefined;
  const listing = ref
    ? await execa('git', ['ls-tree', '-r', '-z', '--name-only', ref, '--', ...SOURCES], { cwd: packagePath() })
    : await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...SOURCES], { cwd: packagePath() });
  const files = [...new Set(listing.stdout.split('\0').filter(Boolean))].sort();
  // A tracked file deleted in the working tree is not a source any more.
  return { ref, files: ref ? files : files.filter((file) => existsSync(packagePath(file))) };
}

async function sourceHash(ref: string | undefined, files: string[]): Promise<string> {
  const hash = createHash('sha256');
  if (ref) {
    hash.update((await execa('git', ['ls-tree', '-r', ref, '--', ...files], { cwd: packagePath() })).stdout);
  } else {
    for (const file of files) hash.update(`${file}\0${sha256(await readFile(packagePath(file)))}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Runs `make` unless `ready()` already holds, in one process at a time across workers. A lock
 * left by a process that died is taken over; a waiter gives up after MAKE_TIMEOUT_MS.
 */
async function makeOnce(lock: string, ready: () => boolean, make: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + MAKE_TIMEOUT_MS;
  await mkdir(dirname(lock), { recursive: true });
  while (!ready()) {
    try {
      await mkdir(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      // The pid is written just after the mkdir: a lock without one is stale only once it is old.
      if ((owner && !processAlive(owner)) || (!owner && age > 30_000)) await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`gave up waiting for ${lock} (held by pid ${owner || 'unknown'})`);
      else await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      await writeFile(join(lock, 'pid'), String(process.pid));
      if (!ready()) await make();
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

/** A copy of the sources in a fresh folder, with the project's node_modules linked in: a checkout, built by nothing yet. */
async function stageSources(ref: string | undefined, files: string[]): Promise<string> {
  const stage = await mkdtemp(join(tmpdir(), 'sgw-pack-src-'));
  if (ref) {
    const archive = await execa('git', ['archive', '--format=tar', ref, '--', ...files], { cwd: packagePath(), encoding: 'buffer' });
    await execa('tar', ['-x', '-C', stage], { input: archive.stdout });
  } else {
    for (const file of files) {
      await mkdir(dirname(join(stage, file)), { recursive: true });
      await copyFile(packagePath(file), join(stage, file));
    }
  }
  // The build's tools (tsc, tsx, swagger-ui-dist) come from the project's own install.
  await symlink(packagePath('node_modules'), join(stage, 'node_modules'), 'dir');
  return stage;
}

/**
 * This repository as a fresh clone after `npm install` has it (the sources, node_modules, no
 * dist/), in a folder of its own: for tests of the repository's own scripts (`npm start`).
 * The caller removes it.
 */
export async function checkout(): Promise<string> {
  const { ref, files } = await sourceFiles();
  return stageSources(ref, files);
}

/**
 * A checkout (as `checkout()`) that has been built already: its dist/ is a copy of the one
 * `npm pack` built from the same sources, build records and all, so `npm run build` and
 * `npm start`'s prestart find it up to date instead of compiling everything again (a full build
 * is the slowest step of a test of `npm start`). For tests of what runs after the build.
 */
export async function builtCheckout(): Promise<string> {
  const { ref, files } = await sourceFiles();
  const built = builtDist(await packTarball());
  const stage = await stageSources(ref, files);
  await cp(built, join(stage, 'dist'), { recursive: true, verbatimSymlinks: true });
  return stage;
}

/**
 * Gives this repository a dist/ when it has none (a fresh clone): a copy of the one `npm pack`
 * built from the same sources, so a build here (`npm run build:image`) finds it up to date rather
 * than compiling everything again. Copied beside it and moved into place by one rename, so no build
 * or server sees half of it; a dist/ that appeared meanwhile stays. With SGW_PACK_REF set the
 * tarball is of another commit's sources, so nothing is copied.
 */
export async function seedDist(): Promise<void> {
  const dist = packagePath('dist');
  if (existsSync(dist) || process.env['SGW_PACK_REF']) return;
  const built = builtDist(await packTarball());
  const staging = await mkdtemp(join(PACK_CACHE, 'dist-seed-'));
  try {
    await cp(built, staging, { recursive: true, verbatimSymlinks: true });
    await rename(staging, dist).catch((error: NodeJS.ErrnoException) => {
      if (!['ENOTEMPTY', 'EEXIST'].includes(error.code ?? '')) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Where the dist/ the tarball was built with is kept, beside it. */
function builtDist(tarball: string): string {
  return tarball.replace(/\.tgz$/, '.dist');
}

const tarballs = new Map<string, Promise<string>>();

/**
 * The package as `npm pack` makes it (its `prepare` script builds it), for the current sources.
 * Packed in a copy of the sources, so the working tree's own dist/ (the one `npm start` runs) is
 * never rebuilt under someone's feet. Resolves with the path of the .tgz.
 */
export async function packTarball(): Promise<string> {
  const { ref, files } = await sourceFiles();
  const hash = await sourceHash(ref, files);
  let tarball = tarballs.get(hash);
  if (!tarball) {
    tarball = makeTarball(hash, ref, files);
    tarballs.set(hash, tarball);
  }
  return tarball;
}

async function makeTarball(hash: string, ref: string | undefined, files: string[]): Promise<string> {
  const target = join(PACK_CACHE, `social-gateway-mock-${hash}.tgz`);
  await makeOnce(join(PACK_CACHE, `${hash}.lock`), () => existsSync(target) && existsSync(builtDist(target)), async () => {
    const stage = await stageSources(ref, files);
    try {
      const out = await mkdtemp(join(PACK_CACHE, `${hash}.tmp-`));
      try {
        const packed = await execa('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, env: cleanEnv(), extendEnv: false, timeout: MAKE_TIMEOUT_MS });
        // The build's own output comes first on stdout; npm's JSON is the end of it.
        const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.lastIndexOf('\n[') + 1)) as [{ filename: string }];
        // The build it packed is kept for builtCheckout(), moved into place before the tarball that marks both ready.
        await rm(builtDist(target), { recursive: true, force: true });
        await rename(join(stage, 'dist'), builtDist(target));
        await rename(join(out, basename(filename)), target);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
      await pruneTarballs(target);
    } finally {
      await rm(stage, { recursive: true, force: true });
    }
  });
  return target;
}

/** Tarballs of older sources (and their builds), kept for a day so a rebased or switched branch need not repack. */
async function pruneTarballs(keep: string): Promise<void> {
  for (const name of await readdir(PACK_CACHE)) {
    const path = join(PACK_CACHE, name);
    if (path === keep || !name.endsWith('.tgz')) continue;
    const { mtimeMs } = await stat(path);
    if (Date.now() - mtimeMs > 86_400_000) await Promise.all([rm(path, { force: true }), rm(builtDist(path), { recursive: true, force: true })]);
  }
}

/**
 * The environment a user's shell would give: without what npm (`npm test`) and vitest set for
 * this project. npm_config_local_prefix, for one, would make npx in the scratch project look
 * for its packages here; VITEST_* would confuse a vitest run inside the scratch project.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|vitest|init_cwd$|node_env$|node_options$|tsx_)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

export interface ScratchProject {
  /** The project's folder (a fresh one per call). */
  dir: string;
  /**
   * Runs a command in the project, as a user's shell would (no npm or vitest variables), bounded
   * by RUN_TIMEOUT_MS unless `opts.timeout` says otherwise. The execa subprocess: await it for the
   * result, or read its streams and signal it while it runs.
   */
  run<RunOptions extends Options = { timeout?: number }>(cmd: string, args?: readonly string[], opts?: RunOptions): ResultPromise<RunOptions>;
  /** Deletes the folder (the shared install stays). */
  remove(): Promise<void>;
}

const installs = new Map<string, Promise<string>>();

/**
 * A project of its own under the system's temporary folder (`package.json` with `type: module`)
 * with the packed package installed, as `npm install -D social-gateway-mock` would, plus any
 * `devDependencies` (npm specs: `vitest@^4`, `jest`). The install is made once per tarball and
 * dev dependencies and shared: each call gets a fresh folder whose node_modules links to it.
 */
export async function scratchProject(name: string, { devDependencies = [] }: { devDependencies?: string[] } = {}): Promise<ScratchProject> {
  const tarball = await packTarball();
  const key = sha256(`${basename(tarball)}\0${[...devDependencies].sort().join('\0')}`).slice(0, 16);
  let installed = installs.get(key);
  if (!installed) {
    installed = installOnce(key, tarball, devDependencies);
    installs.set(key, installed);
  }
  const install = await installed;
  const dir = await mkdtemp(join(tmpdir(), `sgw-${name.replace(/[^\w-]/g, '-')}-`));
  const manifest = JSON.parse(await readFile(join(install, 'package.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(dir, 'package.json'), `${JSON.stringify({ ...manifest, name: `scratch-${name}`.toLowerCase().replace(/[^\w-]/g, '-') }, null, 2)}\n`);
  await symlink(join(install, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    dir,
    run<RunOptions extends Options>(cmd: string, args: readonly string[] = [], opts?: RunOptions) {
      const env = cleanEnv(opts?.env as Record<string, string> | undefined);
      // execa's result type follows the options given; the ones added here change no output's type.
      return execa(cmd, args, { cwd: dir, timeout: RUN_TIMEOUT_MS, ...opts, env, extendEnv: false }) as unknown as ResultPromise<RunOptions>;
    },
    remove() {
      return rm(dir, { recursive: true, force: true });
    },
  };
}

async function installOnce(key: string, tarball: string, devDependencies: string[]): Promise<string> {
  const target = join(SCRATCH_CACHE, key);
  // The folder appears only by the rename of a finished install.
  await makeOnce(join(SCRATCH_CACHE, `${key}.lock`), () => existsSync(target), async () => {
    const staging = await mkdtemp(join(SCRATCH_CACHE, `${key}.tmp-`));
    await writeFile(join(staging, 'package.json'), `${JSON.stringify({ name: 'scratch', private: true, type: 'module' }, null, 2)}\n`);
    await execa('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-dev', tarball, ...devDependencies], {
      cwd: staging,
      env: cleanEnv(),
      extendEnv: false,
      timeout: MAKE_TIMEOUT_MS,
    });
    await rename(staging, target);
  });
  return target;
}
