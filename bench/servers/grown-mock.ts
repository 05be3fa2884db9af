/**
 * The mock holding one workspace grown to `--posts` posts, for bench:growth: the build's own
 * createMockServer (the dist/ of BENCH_MOCK_ENTRY's build, `--server`), the default workspace
 * grown in process before it listens, so no request ever sees it half grown. The records are
 * written straight into the workspace's stores, as a data file would bring them: the stores'
 * derived indexes (posts list, destinations, comments, conversations) are built from them on
 * first use, in this build and in older ones alike. Not `--data`: with it, every write
 * serialises the whole file, a cost of persistence rather than of the request.
 *
 * node --import tsx bench/servers/grown-mock.ts --server dist/src/server.js --port 4010 --posts 10000
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { createMockServer as CreateMockServer } from '../../src/server.js';
import { growWorkspace } from '../lib/growth-data.js';
import { SCALE_CLOCK } from '../lib/scale-data.js';

const { values } = parseArgs({ options: { server: { type: 'string' }, port: { type: 'string' }, posts: { type: 'string' } } });
const { createMockServer } = (await import(pathToFileURL(resolve(values.server ?? 'dist/src/server.js')).href)) as { createMockServer: typeof CreateMockServer };
const server = await createMockServer({ seed: 1, clock: SCALE_CLOCK, clockFrozen: true, rateLimit: false });
growWorkspace(server.registry.defaultWorkspace, Number(values.posts ?? 0));
await server.listen(Number(values.port ?? 4010), '127.0.0.1');
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
