import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pack, type Pack } from 'tar-stream';
import { packagePath } from '../src/lib/package-root.js';
import { VERSION } from '../src/version.js';

/*
 * `npm run build:image` (after `npm run build:binary`): release/social-gateway-mock-image.tar, an image
 * in Docker's archive format (what `docker save` writes, and what `docker load` and `podman load`
 * read), made without a daemon or a registry (docs/decisions/0055-single-executable-and-image.md).
 * Two layers: the system one (the shared libraries the executable links against, as `ldd` lists
 * them, a non-root user, /tmp) and the executable with its files already written out for that user.
 * Container settings are in docs/decisions/0056-host-check-in-containers.md.
 */

const EXECUTABLE = packagePath('release', 'social-gateway-mock-linux-x64');
const IMAGE = packagePath('release', 'social-gateway-mock-image.tar');
const IMAGE_NAME = 'social-gateway-mock';
/** The user the container runs as: a number, so a platform that refuses root (runAsNonRoot) can tell without reading /etc/passwd. */
const USER_ID = 10001;
const PORT = 4010;

/** Files' times: SOURCE_DATE_EPOCH when given (reproducible builds), else the build's. */
const MTIME = process.env.SOURCE_DATE_EPOCH ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000) : new Date();

interface LayerFile {
  name: string;
  /** A file on disk, or the content itself. */
  from: string | Buffer;
  mode: number;
  uid?: number;
}

/** The shared libraries the executable loads, and the dynamic loader, as `ldd` names them. */
function linkedLibraries(executable: string): string[] {
  const out = execFileSync('ldd', [executable], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((match) => match[1]!);
}

function systemLayer(): { files: LayerFile[]; dirs: Array<{ name: string; mode: number }> } {
  const libraries = linkedLibraries(EXECUTABLE);
  const dirs = new Set<string>(['etc']);
  for (const library of libraries) {
    const parts = library.slice(1).split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i += 1) dirs.add(parts.slice(0, i).join('/'));
  }
  return {
    dirs: [...[...dirs].sort().map((name) => ({ name, mode: 0o755 })), { name: 'tmp', mode: 0o1777 }],
    files: [
      // Each library at the path the loader looks for, with the content of the file it names (Debian's /lib is a link into /usr/lib).
      ...libraries.map((library) => ({ name: library.slice(1), from: realpathSync(library), mode: 0o755 })),
      { name: 'etc/passwd', from: Buffer.from(`root:x:0:0:root:/root:/sbin/nologin\nmock:x:${USER_ID}:${USER_ID}:social-gateway-mock:/tmp:/sbin/nologin\n`), mode: 0o644 },
      { name: 'etc/group', from: Buffer.from(`root:x:0:\nmock:x:${USER_ID}:\n`), mode: 0o644 },
      // Names from the runtime's /etc/hosts (service aliases), then DNS.
      { name: 'etc/nsswitch.conf', from: Buffer.from('hosts: files dns\n'), mode: 0o644 },
    ],
  };
}

/**
 * The executable's files written out as its first start would (src/lib/sea-assets.ts), owned by
 * the container's user: a container starts without writing them, and runs on a read-only root.
 */
function unpackedAssets(): { dirs: Array<{ name: string; mode: number; uid: number }>; files: LayerFile[] } {
  const scratch = mkdtempSync(join(tmpdir(), 'sgm-image-'));
  try {
    execFileSync(EXECUTABLE, ['--version'], { env: { ...process.env, TMPDIR: scratch }, stdio: 'ignore' });
    const dirs: Array<{ name: string; mode: number; uid: number }> = [];
    const files: LayerFile[] = [];
    for (const entry of readdirSync(scratch, { recursive: true, withFileTypes: true })) {
      const full = join(entry.parentPath, entry.name);
      const name = `tmp/${relative(scratch, full).split(sep).join('/')}`;
      if (entry.isDirectory()) dirs.push({ name, mode: 0o700, uid: USER_ID });
      else files.push({ name, from: readFileSync(full), mode: 0o600, uid: USER_ID });
    }
    // The folder of one user alone (the executable checks) owned by the container's user.
    const top = readdirSync(scratch)[0]!;
    const renamed = (name: string) => name.replace(`tmp/${top}`, `tmp/social-gateway-mock-${USER_ID}`);
    return {
      dirs: dirs.map((dir) => ({ ...dir, name: renamed(dir.name) })).sort((a, b) => a.name.localeCompare(b.name)),
      files: files.map((file) => ({ ...file, name: renamed(file.name) })),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function addFile(tar: Pack, file: LayerFile): Promise<void> {
  const header = { name: file.name, mode: file.mode, uid: file.uid ?? 0, gid: file.uid ?? 0, mtime: MTIME };
  if (Buffer.isBuffer(file.from)) {
    const content = file.from;
    return new Promise((resolve, reject) => tar.entry({ ...header, size: content.length }, content, (error) => (error ? reject(error) : resolve())));
  }
  const entry = tar.entry({ ...header, size: statSync(file.from).size });
  return pipeline(createReadStream(file.from), entry);
}

/** Writes one layer's tar and answers its digest (the image's diff_id: the digest of the uncompressed tar). */
async function writeLayer(path: string, dirs: Array<{ name: string; mode: number; uid?: number }>, files: LayerFile[]): Promise<string> {
  const tar = pack();
  const hash = createHash('sha256');
  tar.on('data', (chunk) => hash.update(chunk as Buffer));
  const written = pipeline(tar, createWriteStream(path));
  for (const dir of dirs) tar.entry({ name: `${dir.name}/`, type: 'directory', mode: dir.mode, uid: dir.uid ?? 0, gid: dir.uid ?? 0, mtime: MTIME });
  for (const file of files) await addFile(tar, file);
  tar.finalize();
  await written;
  return hash.digest('hex');
}

async function main(): Promise<void> {
  const started = performance.now();
  if (!existsSync(EXECUTABLE)) throw new Error(`${relative(packagePath(), EXECUTABLE)} is missing: run npm run build:binary first`);
  const work = mkdtempSync(join(tmpdir(), 'sgm-layers-'));
  try {
    const system = systemLayer();
    const assets = unpackedAssets();
    const systemDigest = await writeLayer(join(work, 'system.tar'), system.dirs, system.files);
    const appDigest = await writeLayer(join(work, 'app.tar'), assets.dirs, [{ name: 'social-gateway-mock', from: EXECUTABLE, mode: 0o755 }, ...assets.files]);

    const config = {
      architecture: 'amd64',
      os: 'linux',
      created: MTIME.toISOString(),
      config: {
        User: `${USER_ID}:${USER_ID}`,
        ExposedPorts: { [`${PORT}/tcp`]: {} },
        Env: [
          'PATH=/',
          'TMPDIR=/tmp',
          // All interfaces: the port is reached from the host and from other containers, never over the container's own loopback alone.
          'SOCIAL_GATEWAY_MOCK_HOST=0.0.0.0',
          // The names a CI service or a compose file gives it (docs/decisions/0056-host-check-in-containers.md).
          'SOCIAL_GATEWAY_MOCK_ALLOWED_HOSTS=mock,social-gateway-mock',
        ],
        Entrypoint: ['/social-gateway-mock'],
        Cmd: [],
        WorkingDir: '/tmp',
        Labels: {
          'org.opencontainers.image.title': IMAGE_NAME,
          'org.opencontainers.image.version': VERSION,
          'org.opencontainers.image.licenses': 'MIT',
          'org.opencontainers.image.source': 'https://github.com/social-gateway-mock/social-gateway-mock',
        },
      },
      rootfs: { type: 'layers', diff_ids: [`sha256:${systemDigest}`, `sha256:${appDigest}`] },
      history: [
        { created: MTIME.toISOString(), created_by: 'scripts/build-image.ts: the libraries ldd lists, /etc/passwd, /tmp' },
        { created: MTIME.toISOString(), created_by: 'scripts/build-image.ts: the single executable and its files' },
      ],
    };
    const configText = Buffer.from(JSON.stringify(config));
    const configName = `${createHash('sha256').update(configText).digest('hex')}.json`;
    const layers = [`${systemDigest}/layer.tar`, `${appDigest}/layer.tar`];
    const manifest = [{ Config: configName, RepoTags: [`${IMAGE_NAME}:${VERSION}`, `${IMAGE_NAME}:latest`], Layers: layers }];

    const outer = pack();
    const written = pipeline(outer, createWriteStream(IMAGE));
    const add = (name: string, from: string | Buffer) => addFile(outer, { name, from, mode: 0o644 });
    await add(layers[0]!, join(work, 'system.tar'));
    await add(layers[1]!, join(work, 'app.tar'));
    await add(configName, configText);
    await add('manifest.json', Buffer.from(JSON.stringify(manifest)));
    outer.finalize();
    await written;
    const size = statSync(IMAGE).size;
    console.log(`${relative(packagePath(), IMAGE)}: ${(size / 1e6).toFixed(1)} MB, ${IMAGE_NAME}:${VERSION}, built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
