import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { PACKAGE_ROOT, packagePath } from '../src/lib/package-root.js';

/*
 * The one build: `npm run build`, `npm start` (prestart) and `npm pack` (prepack, with --clean) all
 * run this file (docs/decisions/0032-npm-start-that-starts.md).
 *
 * dist/ is never deleted nor swapped: a running server reads files from it at request time (the docs
 * and dashboard assets) and a second `npm start` may be serving from it. Each step writes only the
 * files whose content changed, each by a rename over the old one, so a reader sees the old file or
 * the new one, never half of one. A step runs only when the content of its inputs changed since it
 * last ran (the digests are kept in dist/.build/steps.json); the TypeScript steps are incremental
 * too, so an edit of one file recompiles what that edit affects. After the steps, files no step produced any more
 * (the output of a deleted source) are removed. --clean ignores what earlier builds recorded and
 * compiles everything afresh, for the package.
 */

const require = createRequire(import.meta.url);
const DIST = packagePath('dist');
/** The build's own bookkeeping: never shipped (package.json's `files` names dist's other folders). */
const STATE = join(DIST, '.build');
const STEPS_FILE = join(STATE, 'steps.json');
const LOCK = join(STATE, 'lock');
/** How long a build waits for another one in the same checkout before giving up. */
const LOCK_TIMEOUT_MS = 300_000;

interface Step {
  name: string;
  /** Files or folders (from the package's root, or absolute) whose content decides the step's output. */
  inputs: () => string[];
  /** Writes the outputs (with `write`) and says which files the step owns, written now or not; `clean`: as if nothing had been built before. */
  run: (write: Writer, clean: boolean) => Promise<StepResult>;
}

interface StepResult {
  outputs: string[];
  /** Files read besides `inputs`, found while running (the modules a program imports): inputs of the next build too. */
  read?: string[];
}

type Writer = (path: string, content: string) => void;

/** What an earlier build recorded of each step: the digest of its inputs, what it read, and the files it owns (from the package's root). */
type StepRecords = Record<string, { digest: string; read: string[]; outputs: string[] }>;

/** The installed package's own folder, or a path that does not exist (hashed as missing: the step then fails with npm install's advice). */
function installed(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return packagePath('node_modules', name);
  }
}

const STEPS: Step[] = [
  {
    name: 'server code',
    // The lock file stands for the compiler and the types of the dependencies.
    inputs: () => ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    run: (write, clean) => compile('tsconfig.build.json', 'server', write, clean),
  },
  {
    name: 'contracts snapshot',
    // The contracts parsed ahead of time, so the mock starts without parsing YAML (src/http/spec.ts).
    inputs: () => ['openapi.yaml', 'control.yaml', 'src/http/spec.ts', join(installed('yaml'), 'package.json')],
    run: async (write) => {
      const { CONTRACT_SNAPSHOT_FILE, contractSnapshot } = await import('../src/http/spec.js');
      write(CONTRACT_SNAPSHOT_FILE, JSON.stringify(contractSnapshot()));
      return { outputs: [CONTRACT_SNAPSHOT_FILE] };
    },
  },
  {
    name: 'docs assets',
    // Swagger UI's files copied into the package, so that swagger-ui-dist, and the analytics package
    // its install script runs, stay dev dependencies (docs/decisions/0010-packaging.md).
    // A published version never changes, so the package's manifest stands for its 12 MB of files.
    inputs: () => ['src/docs/docs-page.ts', join(installed('swagger-ui-dist'), 'package.json')],
    run: async (write) => {
      const { BUILT_DOCS_ASSETS, DOCS_ASSET_FILES, DOCS_LICENSE_FILES } = await import('../src/docs/docs-page.js');
      const source = installed('swagger-ui-dist');
      const outputs = [...DOCS_ASSET_FILES, ...DOCS_LICENSE_FILES].map((file) => {
        const text = readFileSync(join(source, file), 'utf8');
        // The source maps they name are not copied: without the comment a browser's developer
        // tools do not ask for them and log a 404.
        write(join(BUILT_DOCS_ASSETS, file), file.endsWith('.css') || file.endsWith('.js') ? text.replace(/\/[*/]# sourceMappingURL=[^\s*]+(?:\s*\*\/)?\s*$/, '') : text);
        return join(BUILT_DOCS_ASSETS, file);
      });
      return { outputs };
    },
  },
  {
    name: 'dashboard code',
    // Its own program, with the DOM. The types it imports from the rest of src are found by the
    // compiler and recorded, so an edit of the server's code alone does not run this step.
    inputs: () => ['src/dashboard/ui', 'package-lock.json'],
    run: (write, clean) => compile('src/dashboard/ui/tsconfig.json', 'dashboard', write, clean),
  },
  {
    name: 'dashboard vendor',
    // Preact's own ESM files (and its licence) copied into the package, so the dashboard works
    // offline and preact stays a dev dependency (docs/decisions/0021-dashboard.md).
    inputs: () => ['src/dashboard/router.ts', join(installed('preact'), 'package.json')],
    run: async (write) => {
      const { BUILT_DASHBOARD_VENDOR, DASHBOARD_VENDOR_FILES, installedPreact, withoutSourceMapComment } = await import('../src/dashboard/router.js');
      const source = installedPreact();
      if (!source) throw new Error('preact is not installed: run npm install');
      const outputs = Object.entries(DASHBOARD_VENDOR_FILES).map(([name, path]) => {
        write(join(BUILT_DASHBOARD_VENDOR, name), withoutSourceMapComment(readFileSync(join(source, path), 'utf8')));
        return join(BUILT_DASHBOARD_VENDOR, name);
      });
      return { outputs };
    },
  },
];

/**
 * One tsc program, incremental: its state is kept in dist/.build/<name>.tsbuildinfo, and only the
 * files a change affects are emitted. Nothing is written when the program has errors, so dist/
 * keeps the last good build. Returns every output of the program, emitted now or earlier, and
 * every file of it.
 */
async function compile(configFile: string, name: string, write: Writer, clean: boolean): Promise<StepResult> {
  const ts = (await import('typescript')).default;
  const buildInfo = join(STATE, `${name}.tsbuildinfo`);
  const config = ts.getParsedCommandLineOfConfigFile(packagePath(configFile), { incremental: true, tsBuildInfoFile: buildInfo }, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error(`cannot read ${configFile}`);
  const host = ts.createIncrementalCompilerHost(config.options);
  host.writeFile = (file, text) => write(file, text);
  const configDiagnostics = ts.getConfigFileParsingDiagnostics(config);
  const program = clean
    ? ts.createEmitAndSemanticDiagnosticsBuilderProgram(config.fileNames, config.options, host, undefined, configDiagnostics, config.projectReferences)
    : ts.createIncrementalProgram({ rootNames: config.fileNames, options: config.options, host, configFileParsingDiagnostics: configDiagnostics, projectReferences: config.projectReferences });
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getSemanticDiagnostics(),
  ];
  const emitted = diagnostics.length === 0 ? program.emit().diagnostics : [];
  const errors = [...diagnostics, ...emitted];
  if (errors.length > 0) {
    const format = { getCanonicalFileName: (file: string) => file, getCurrentDirectory: () => PACKAGE_ROOT, getNewLine: () => '\n' };
    throw new Error(`${configFile} does not compile:\n${ts.formatDiagnosticsWithColorAndContext(errors, format)}`);
  }
  // Every file of the program, not only its roots: tsc also emits the JSON modules src imports, and
  // the (empty) modules of the types the dashboard imports from the server's code.
  const compiled = program.getProgram();
  const sources = compiled.getSourceFiles().filter((file) => !file.isDeclarationFile && !compiled.isSourceFileFromExternalLibrary(file));
  const everyFile = { ...config, fileNames: sources.map((file) => file.fileName) };
  const outputs = everyFile.fileNames.flatMap((file) => ts.getOutputFileNames(everyFile, file, !ts.sys.useCaseSensitiveFileNames));
  return { outputs: [...outputs, buildInfo], read: everyFile.fileNames };
}

const digests = new Map<string, string>();

/** The digest of a file's content, or of its absence; a folder's is that of every file under it. */
function hashPath(path: string, hash: ReturnType<typeof createHash>): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) {
    for (const entry of readdirSync(path).sort()) hashPath(join(path, entry), hash);
    return;
  }
  let digest = digests.get(path);
  if (digest === undefined) {
    digest = stat ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'missing';
    digests.set(path, digest);
  }
  hash.update(`${relative(PACKAGE_ROOT, path)}\0${digest}\0`);
}

function inputsDigest(step: Step, read: readonly string[]): string {
  const hash = createHash('sha256');
  // The step's own code is one of its inputs.
  for (const input of [...step.inputs(), ...read, 'scripts/build.ts']) hashPath(isAbsolute(input) ? input : packagePath(input), hash);
  return hash.digest('hex');
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readRecords(): StepRecords {
  try {
    return JSON.parse(readText(STEPS_FILE) ?? '{}') as StepRecords;
  } catch {
    return {};
  }
}

/** Replaces a file by a rename, so a reader sees the old content or the new, never a part of it; an unchanged file is left as it is. */
function writeIfChanged(path: string, content: string): boolean {
  if (readText(path) === content) return false;
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
  return true;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One build at a time per checkout: a second `npm start` waits for the first's build, then finds it done. */
async function withLock<T>(work: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + LOCK_TIMEOUT_MS;
  mkdirSync(STATE, { recursive: true });
  let told = false;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readText(join(LOCK, 'pid')) || 0);
    // The pid is written just after the mkdir: a lock without one is stale only once it is old.
    const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if ((owner && !processAlive(owner)) || (!owner && age > 30_000)) {
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (performance.now() > deadline) throw new Error(`gave up waiting for the build of pid ${owner} (${relative(PACKAGE_ROOT, LOCK)})`);
    if (!told) console.log(`build: waiting for the build of pid ${owner || 'unknown'}`);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Removes every file under dist/ that no step owns (the output of a deleted source), and the folders left empty. */
function prune(owned: ReadonlySet<string>, folder = DIST): number {
  let removed = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (path === STATE) continue;
    if (entry.isDirectory()) {
      removed += prune(owned, path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (!owned.has(path)) {
      unlinkSync(path);
      removed += 1;
    }
  }
  return removed;
}

/** The steps whose inputs changed since they last ran, or whose outputs are gone. */
function staleSteps(records: StepRecords): Step[] {
  return STEPS.filter((step) => {
    const record = records[step.name];
    return record?.digest !== inputsDigest(step, record?.read ?? []) || !record.outputs.every((file) => existsSync(packagePath(file)));
  });
}

async function build(clean: boolean): Promise<void> {
  const started = performance.now();
  // Checked before the lock too: an up-to-date dist/ costs one read of the sources.
  if (!clean && staleSteps(readRecords()).length === 0) {
    console.log('build: dist/ is up to date');
    return;
  }
  await withLock(async () => {
    const records = clean ? {} : readRecords();
    const stale = clean ? STEPS : staleSteps(records);
    let written = 0;
    const write: Writer = (path, content) => {
      if (writeIfChanged(path, content)) written += 1;
    };
    for (const step of stale) {
      const [before, stepStarted] = [written, performance.now()];
      const record = records[step.name];
      // A tsc program whose outputs were deleted would not emit them again from its build info.
      const afresh = clean || (record !== undefined && !record.outputs.every((file) => existsSync(packagePath(file))));
      const { outputs, read = [] } = await step.run(write, afresh);
      const fromRoot = (files: string[]) => files.map((file) => relative(PACKAGE_ROOT, file).split(sep).join('/'));
      // Digests are kept from when a file was first read this build: one edited while the step ran
      // leaves the step stale for the next build, never a new content recorded as built.
      records[step.name] = { digest: inputsDigest(step, read), read: fromRoot(read), outputs: fromRoot(outputs) };
      writeIfChanged(STEPS_FILE, `${JSON.stringify(records, null, 2)}\n`);
      console.log(`build: ${step.name}: ${written - before} file(s) written in ${Math.round(performance.now() - stepStarted)} ms`);
    }
    const owned = new Set(Object.values(records).flatMap((record) => record.outputs.map((file) => packagePath(file))));
    const removed = prune(owned);
    const took = Math.round(performance.now() - started);
    console.log(stale.length === 0 ? 'build: dist/ is up to date' : `build: dist/ rebuilt (${written} file(s) written, ${removed} removed) in ${took} ms`);
  });
}

try {
  await build(process.argv.includes('--clean'));
} catch (error) {
  console.error(`build: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
