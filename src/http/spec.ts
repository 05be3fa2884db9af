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

/** Reads and parses a contract shipped in the package (`openapi.yaml`, `control.yaml`); once per process. */
export function loadSpec(fileName: string): LoadedSpec {
  let spec = cache.get(fileName);
  if (!spec) {
    const text = readFileSync(packagePath(fileName), 'utf8');
    spec = { text, document: parse(text) as OpenApiDocument };
    cache.set(fileName, spec);
  }
  return spec;
}
