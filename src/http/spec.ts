import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { packagePath } from '../lib/package-root.js';

/** The parts of an OpenAPI document the mock reads itself (the validator reads the rest). */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface LoadedSpec {
  document: OpenApiDocument;
  /** The file as written, served at GET /openapi.yaml. */
  text: string;
}

const cache = new Map<string, LoadedSpec>();

/** The contracts the mock ships and reads at start. */
export const CONTRACT_FILES = ['openapi.yaml', 'control.yaml'] as const;

/** Each contract parsed ahead of time, with the digest of the text it was parsed from. */
export type ContractSnapshot = Record<string, { sha256: string; document: OpenApiDocument }>;

/** Written by `npm run build` (scripts/build.ts), shipped in dist/src. */
export const CONTRACT_SNAPSHOT_FILE = packagePath('dist', 'src', 'contracts.json');

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The contracts as the build snapshots them; pure, so a test can compare it with the YAML. */
export function contractSnapshot(): ContractSnapshot {
  const snapshot: ContractSnapshot = {};
  for (const fileName of CONTRACT_FILES) {
    const text = readFileSync(packagePath(fileName), 'utf8');
    snapshot[fileName] = { sha256: digest(text), document: parse(text) as OpenApiDocument };
  }
  return snapshot;
}

let snapshot: ContractSnapshot | null | undefined;

/**
 * Parsing openapi.yaml (240 KB) with the yaml package took about a second of a
 * start that integrators pay once per CI job; JSON.parse of the same document
 * takes a few milliseconds. The snapshot is used only when its digest matches the
 * YAML being served, so an edited contract is never answered from a stale copy
 * (it is parsed from YAML instead, as when running from src without a build).
 */
function fromSnapshot(fileName: string, text: string): OpenApiDocument | undefined {
  if (snapshot === undefined) {
    try {
      snapshot = JSON.parse(readFileSync(CONTRACT_SNAPSHOT_FILE, 'utf8')) as ContractSnapshot;
    } catch {
      snapshot = null;
    }
  }
  const entry = snapshot?.[fileName];
  return entry && entry.sha256 === digest(text) ? entry.document : undefined;
}

/** Reads and parses a contract shipped in the package (`openapi.yaml`, `control.yaml`); once per process. */
export function loadSpec(fileName: string): LoadedSpec {
  let spec = cache.get(fileName);
  if (!spec) {
    const text = readFileSync(packagePath(fileName), 'utf8');
    spec = { text, document: fromSnapshot(fileName, text) ?? (parse(text) as OpenApiDocument) };
    cache.set(fileName, spec);
  }
  return spec;
}
