import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { MAX_CONFIG_FILE_BYTES } from '../../src/cli/options.js';
import { RECORDING_FORMAT, MAX_EXCHANGE_FILE_BYTES } from '../../src/proxy/recording.js';
import { REDACTED } from '../../src/redaction/redactor.js';
import { MAX_SCENARIO_FILE_BYTES } from '../../src/scenarios/library.js';
import { DATA_FORMAT, DATA_VERSION, MAX_DATA_FILE_BYTES } from '../../src/store/database.js';
import { cliIo } from '../helpers/cli-io.js';

/*
 * Item 9 of issue 28: every file the command line reads (a recording's exchanges for `drift` and
 * `scenario from-recording`, --data, --config, --scenario), when hostile, is answered with one
 * line that names the file and the problem, exit 2, no stack trace, and none of the file's content.
 */

/** Written into every hostile file: it must never reach the output. */
const MARK = 'CONTENT-MARK-7f3a';
const DEPTH = 5000;

const root = mkdtempSync(join(tmpdir(), 'sgw-cli-input-'));
const stopping: Array<() => Promise<number>> = [];
afterAll(async () => {
  for (const stop of stopping) await stop();
});

function deepJson(depth: number): string {
  return `${`{"${MARK}":`.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A valid exchange file whose answer body nests `depth` levels. */
function deepExchange(depth: number): string {
  const head = JSON.stringify({ format: RECORDING_FORMAT, seq: 1, operationId: 'listPosts', startedAt: '2026-03-02T09:00:00.000Z', durationMs: 1, request: { method: 'GET', path: '/v1/posts', query: '', headers: { 'x-api-key': REDACTED } } });
  return `${head.slice(0, -1)},"response":{"status":200,"headers":{"content-type":"application/json"},"json":${deepJson(depth)}}}`;
}

type Kind = 'deep' | 'huge' | 'garbage' | 'not UTF-8';

interface Entry {
  name: string;
  /** The cap the entry reads up to. */
  maxBytes: number;
  /** The hostile file's content for a kind (huge is made sparse, past the cap). */
  content: Record<Exclude<Kind, 'huge'>, string | Buffer>;
  /** The command line, given the hostile file's path. */
  argv: (path: string) => string[];
  /** Where the file goes: a recording folder's exchange, or a file of its own. */
  inFolder: boolean;
  /** What the line says of a deep file. */
  deep: RegExp;
}

const NOT_UTF8 = (prefix: string) => Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from(`${MARK}"`)]);

const recording = (command: string[]): Omit<Entry, 'name'> => ({
  maxBytes: MAX_EXCHANGE_FILE_BYTES,
  content: { deep: deepExchange(DEPTH), garbage: `${MARK} {{{ not json at all`, 'not UTF-8': NOT_UTF8('{"format":"') },
  argv: (path) => [...command, join(path, '..')],
  inFolder: true,
  deep: /more than 128 levels deep/,
});

const ENTRIES: Entry[] = [
  { name: 'drift <dir>', ...recording(['drift']) },
  { name: 'scenario from-recording <dir>', ...recording(['scenario', 'from-recording']) },
  {
    name: '--data FILE',
    maxBytes: MAX_DATA_FILE_BYTES,
    content: {
      deep: `{"format":"${DATA_FORMAT}","version":${DATA_VERSION},"workspaceCounter":0,"workspaces":{},"extra":${deepJson(DEPTH)}}`,
      garbage: `${MARK} {{{ not json at all`,
      'not UTF-8': NOT_UTF8(`{"format":"${DATA_FORMAT}","version":${DATA_VERSION},"workspaceCounter":0,"workspaces":{},"extra":"`),
    },
    argv: (path) => ['--port', '0', '--data', path],
    inFolder: false,
    deep: /more than 129 levels deep/,
  },
  {
    name: '--config FILE',
    maxBytes: MAX_CONFIG_FILE_BYTES,
    content: { deep: `seed: 1\n${MARK}: ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}\n`, garbage: `seed: 1\n${MARK}: [unclosed, {\n  - : : :\n`, 'not UTF-8': NOT_UTF8(`seed: 1\nx: "`) },
    argv: (path) => ['--port', '0', '--config', path],
    inFolder: false,
    deep: /more than 64 levels deep/,
  },
  {
    name: '--scenario FILE',
    maxBytes: MAX_SCENARIO_FILE_BYTES,
    content: { deep: `name: x\n${MARK}: ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}\n`, garbage: `${MARK} {{{ not yaml either`, 'not UTF-8': NOT_UTF8(`name: x\ndescription: "`) },
    argv: (path) => ['--port', '0', '--scenario', path],
    inFolder: false,
    deep: /more than 64 levels deep/,
  },
];

let count = 0;
function hostileFile(entry: Entry, kind: Kind): string {
  const dir = join(root, `case-${++count}`);
  mkdirSync(dir);
  const path = join(dir, entry.inFolder ? '000001-listPosts.json' : `hostile-${count}.${entry.name.includes('data') || entry.inFolder ? 'json' : 'yaml'}`);
  if (kind === 'huge') {
    // Sparse: as large as asked on the disk's account, without writing it.
    writeFileSync(path, MARK);
    truncateSync(path, entry.maxBytes + 1024);
  } else {
    writeFileSync(path, entry.content[kind]);
  }
  return path;
}

async function run(argv: string[]): Promise<{ exitCode: number | undefined; err: string[]; out: string[] }> {
  const { streams, out, err } = cliIo({}, root);
  const result = await main(argv, streams);
  // Started after all (the old code took the file): stopped with the others.
  if (result.exitCode === undefined) stopping.push(result.stop);
  return { exitCode: result.exitCode, err, out };
}

const PROBLEMS: Record<Kind, (entry: Entry) => RegExp> = {
  deep: (entry) => entry.deep,
  huge: (entry) => new RegExp(`over the ${entry.maxBytes / (1024 * 1024)} MiB \\(${entry.maxBytes} bytes\\)`),
  garbage: (entry) => (entry.name.startsWith('--config') ? /not valid YAML/ : entry.name.startsWith('--scenario') ? /a scenario is a mapping/ : /not valid JSON/),
  'not UTF-8': () => /not UTF-8/,
};

describe.each(ENTRIES)('$name', (entry) => {
  it.each(['deep', 'huge', 'garbage', 'not UTF-8'] as const)('answers a %s file with one line naming it, exit 2, no stack, none of its content', async (kind) => {
    const path = hostileFile(entry, kind);
    const { exitCode, err, out } = await run(entry.argv(path));
    const said = [...out, ...err].join('\n');
    expect(exitCode, said).toBe(2);
    expect(out, said).toEqual([]);
    expect(err, said).toHaveLength(1);
    const line = err[0] as string;
    expect(line).not.toContain('\n');
    expect(line).toContain(path);
    expect(line).toMatch(PROBLEMS[kind](entry));
    // JSON.parse's own message quotes the first ten characters.
    expect(line).not.toContain(MARK.slice(0, 8));
    expect(line).not.toMatch(/\bat .+:\d+:\d+\)?$/m);
  });
});

describe('URLs with credentials', () => {
  it.each([
    ['a URL that is not http', 'ftp://ci-user:hunter2-secret@upstream.example.com'],
    ['a URL that does not parse', 'https://ci-user:hunter2-secret@upstream.example.com:99999'],
  ])('prints %s given to --upstream masked', async (_kind, upstream) => {
    const { exitCode, err } = await run(['proxy', '--upstream', upstream, '--port', '0']);
    expect(exitCode).toBe(2);
    expect(err.join('\n')).toContain('://***@upstream.example.com');
    expect(err.join('\n')).not.toContain('hunter2-secret');
  });
});
