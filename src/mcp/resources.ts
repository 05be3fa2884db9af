import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ResourceTemplate, type McpServer, type ReadResourceResult } from '@modelcontextprotocol/server';
import { packagePath } from '../lib/package-root.js';
import { answerError, controlCredentials, type McpSession } from './session.js';

/*
 * What an agent reads before it writes a client: both contracts, the docs, the scenario library
 * and its schema, as the package ships them; and, as templates, a workspace's journal entries and
 * its state, read through the control plane like everything else.
 */

/** One file the MCP server offers as a resource. */
interface FileResource {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  path: string;
}

/** The files the resources serve, listed once per process. */
export interface ResourceSource {
  files: FileResource[];
}

export const RESOURCE_SCHEME = 'social-gateway-mock';

function mimeTypeOf(file: string): string {
  if (file.endsWith('.md')) return 'text/markdown';
  if (file.endsWith('.json')) return 'application/json';
  return 'application/yaml';
}

/** The package's contracts, docs and scenarios, from its own folder (the same in a checkout and an installed package). */
export function packageResources(root = packagePath()): ResourceSource {
  const files: FileResource[] = [
    { uri: `${RESOURCE_SCHEME}://contract/openapi.yaml`, name: 'openapi.yaml', description: 'The API contract: every operation, parameter, body, answer and error the mock serves under /v1.', mimeType: 'application/yaml', path: join(root, 'openapi.yaml') },
    { uri: `${RESOURCE_SCHEME}://contract/control.yaml`, name: 'control.yaml', description: 'The control plane contract (/__control): the operations the control tools call, with their full schemas.', mimeType: 'application/yaml', path: join(root, 'control.yaml') },
    { uri: `${RESOURCE_SCHEME}://docs/README.md`, name: 'README.md', description: 'What the mock is, its commands, options, control plane, limits and differences from the real service.', mimeType: 'text/markdown', path: join(root, 'README.md') },
  ];
  for (const file of readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort()) {
    files.push({ uri: `${RESOURCE_SCHEME}://docs/${file}`, name: `docs/${file}`, description: `The documentation page ${file}.`, mimeType: 'text/markdown', path: join(root, 'docs', file) });
  }
  for (const file of readdirSync(join(root, 'scenarios')).sort()) {
    const schema = file.endsWith('.json');
    files.push({
      uri: `${RESOURCE_SCHEME}://scenarios/${file}`,
      name: schema ? 'scenario schema' : `scenario ${basename(file, '.yaml')}`,
      description: schema ? 'The JSON Schema of a scenario file (and of a run-time rule).' : `The ready-made scenario ${basename(file, '.yaml')}: load it with the scenarios tool (loadScenario, body {"name": "${basename(file, '.yaml')}"}).`,
      mimeType: mimeTypeOf(file),
      path: join(root, 'scenarios', file),
    });
  }
  return { files };
}

function jsonContents(uri: URL, value: unknown): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
}

function variable(value: string | string[] | undefined): string {
  return decodeURIComponent(Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));
}

export function registerResources(server: McpServer, session: McpSession, source: ResourceSource): void {
  for (const file of source.files) {
    server.registerResource(file.name, file.uri, { description: file.description, mimeType: file.mimeType }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: file.mimeType, text: readFileSync(file.path, 'utf8') }],
    }));
  }
  server.registerResource(
    'journal entry',
    new ResourceTemplate(`${RESOURCE_SCHEME}://workspaces/{workspace}/journal/{seq}`, { list: undefined }),
    { description: "One request of a workspace's journal, by seq ('default' names the default workspace).", mimeType: 'application/json' },
    async (uri, variables) => {
      const workspace = variable(variables.workspace);
      const seq = Number(variable(variables.seq));
      const { credentials, workspace: named } = controlCredentials(session, workspace === 'default' ? undefined : workspace);
      const answer = await session.target.control('getJournal', { query: { after: Number.isInteger(seq) && seq > 0 ? seq - 1 : 0, limit: 1000 }, workspace: named }, credentials);
      if (answer.status !== 200) throw answerError(answer);
      const entry = (answer.body as { data: Array<{ seq: number }> }).data.find((candidate) => candidate.seq === seq);
      if (!entry) throw new Error(`No journal entry ${variable(variables.seq)} in workspace ${workspace}`);
      return jsonContents(uri, entry);
    },
  );
  server.registerResource(
    'workspace state',
    new ResourceTemplate(`${RESOURCE_SCHEME}://workspaces/{workspace}/state`, { list: undefined }),
    { description: "A snapshot of a workspace's whole world (GET /__control/state; 'default' names the default workspace).", mimeType: 'application/json' },
    async (uri, variables) => {
      const workspace = variable(variables.workspace);
      const { credentials, workspace: named } = controlCredentials(session, workspace === 'default' ? undefined : workspace);
      const answer = await session.target.control('getState', { workspace: named }, credentials);
      if (answer.status !== 200) throw answerError(answer);
      return jsonContents(uri, answer.body);
    },
  );
}
