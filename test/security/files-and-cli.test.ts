import { lstatSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { maskPrintedLine } from '../../src/cli/printed-line.js';
import { Database } from '../../src/store/database.js';
import { cliIo } from '../helpers/cli-io.js';
import { stdioClient } from '../helpers/mcp.js';

/*
 * Issue 35, item 8: `--data` wrote through a temporary file of a fixed name, following a symlink
 * planted there; and the command line echoed a password given in a URL's query.
 */

describe('--data writes through a temporary file opened exclusively under a random name', () => {
  it('never writes through a symlink planted where the temporary file used to be, and leaves a plain data file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sgw-fence-data-'));
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    const file = join(dir, 'state.json');
    // The name every write used: whoever can write the folder could point it anywhere the server may write.
    symlinkSync(victim, join(dir, '.state.json.tmp'));

    const database = await Database.open(file);
    for (let write = 0; write < 3; write++) {
      database.markDirty();
      await database.flushChanges();
    }

    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ workspaces: {} });
    // No temporary file of its own is left behind; the planted link is left alone.
    expect(readdirSync(dir).sort()).toEqual(['.state.json.tmp', 'state.json', 'victim.txt']);
  });
});

describe('every URL the command line prints is masked', () => {
  it('does not echo a password in --upstream\'s query, nor its user info', async () => {
    for (const upstream of ['http://host.example/?password=hunter2', 'http://host.example/base?api_key=hunter2&region=eu', 'ftp://alice:hunter2@host.example/?token=hunter2', 'host.example/?secret=hunter2']) {
      const { streams, err, out } = cliIo();
      expect(await main(['proxy', '--upstream', upstream], streams), upstream).toEqual({ exitCode: 2 });
      const printed = [...err, ...out].join('\n');
      expect(printed, upstream).not.toContain('hunter2');
      expect(printed, upstream).toContain('[REDACTED]');
    }
  });

  it('keeps what is not a secret as written', () => {
    expect(maskPrintedLine("--upstream takes no query or fragment; got 'http://h/base?region=eu&password=x&limit=5'")).toBe("--upstream takes no query or fragment; got 'http://h/base?region=eu&password=[REDACTED]&limit=5'");
    expect(maskPrintedLine('  API        http://127.0.0.1:4010/v1 → https://***@api.example.com/v1')).toBe('  API        http://127.0.0.1:4010/v1 → https://***@api.example.com/v1');
    expect(maskPrintedLine('GET /__control/events query { replay?, requests? }')).toBe('GET /__control/events query { replay?, requests? }');
  });

  it('masks a URL quoted back from mcp --url, on stderr and in the MCP error the agent reads, and from a --webhook-deny entry', { timeout: 60_000 }, async () => {
    // Over stdio, as an agent starts it: a start failure answers the first request with an MCP error (decision 0051).
    const told = await stdioClient(['--url', 'ftp://bob:hunter2@mock.example/?token=hunter2']).then(
      () => 'started',
      (error: unknown) => String(error),
    );
    expect(told).toContain('could not start');
    expect(told).toContain('mock.example');
    expect(told).not.toContain('hunter2');
    const deny = cliIo();
    expect(await main(['--webhook-deny', 'http://bob:hunter2@hooks.example/?x=1'], deny.streams)).toEqual({ exitCode: 2 });
    expect(deny.err.join('\n')).not.toContain('hunter2');
    expect(deny.err.join('\n')).toContain('hooks.example');
  });
});
