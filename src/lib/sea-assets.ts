import { existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { getAsset, isSea } from 'node:sea';

/*
 * The single executable (`npm run build:binary`, docs/decisions/0055-single-executable-and-image.md)
 * carries the package's files (contracts, fixtures, scenarios, docs, the dashboard, /docs' assets)
 * as SEA assets. Every reader of the package finds them through `packagePath`, on disk: so at its
 * first start the executable writes them once into a folder of the user's own under the temporary
 * folder, named after their content, and later starts (of the same build) only check it is there.
 */

/** The asset listing every other asset: written by scripts/build-binary.ts. */
export const SEA_MANIFEST = 'sea-manifest.json';

/** What scripts/build-binary.ts writes under SEA_MANIFEST. */
export interface SeaManifest {
  /** A digest of every file's path and content: two builds with the same files share a folder. */
  id: string;
  /** The package-relative paths, each an asset under the same key. */
  files: string[];
}

/** Written last into a complete folder: a start that finds it trusts the rest. */
const COMPLETE = '.complete';

/** The user's own folder under the temporary folder; refused when someone else could have planted files in it. */
function ownFolder(): string {
  const uid = process.getuid?.();
  const folder = join(tmpdir(), `social-gateway-mock-${uid ?? userInfo().username}`);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = lstatSync(folder);
  const foreign = !stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (process.platform !== 'win32' && (stat.mode & 0o022) !== 0);
  if (foreign) throw new Error(`${folder} is not a folder of this user's alone; remove it, or set TMPDIR to another folder`);
  return folder;
}

/**
 * Where the executable's files are on disk, written there at its first start; undefined when not
 * running as a single executable. A folder it cannot use ends the process with one line saying
 * why, before any command runs: nothing else can work without the files.
 */
export function seaPackageRoot(): string | undefined {
  if (!isSea()) return undefined;
  try {
    return writtenOut();
  } catch (error) {
    process.stderr.write(`social-gateway-mock: cannot write out its files: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

function writtenOut(): string {
  const manifest = JSON.parse(getAsset(SEA_MANIFEST, 'utf8')) as SeaManifest;
  const folder = ownFolder();
  const root = join(folder, manifest.id);
  if (existsSync(join(root, COMPLETE))) return root;
  // Written aside and renamed into place: two first starts at once both end up with a whole folder.
  const staging = mkdtempSync(join(folder, '.staging-'));
  for (const file of manifest.files) {
    mkdirSync(dirname(join(staging, file)), { recursive: true });
    writeFileSync(join(staging, file), new Uint8Array(getAsset(file)));
  }
  writeFileSync(join(staging, COMPLETE), '');
  try {
    renameSync(staging, root);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(root, COMPLETE))) throw error;
  }
  return root;
}
