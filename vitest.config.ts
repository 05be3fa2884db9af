import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that need a module registry of their own: the kit's worker-scoped server is cached in
 * its module, and these files must find none started by another file (each proves the kit uses an
 * external one, or the proxy). linear-parsing wraps the yaml package to count its key comparisons,
 * which only the modules loaded after the wrap see.
 */
const ISOLATED = [
  'test/kit/vitest-external.test.ts',
  'test/kit/vitest-shared-server.test.ts',
  'test/kit/vitest-behind-proxy.test.ts',
  'test/kit/vitest-scenario.test.ts',
  'test/security/linear-parsing.test.ts',
];

/*
 * How the suite spends its time: the tests of the product as users get it (test/package,
 * test/recipes, test/release) pack it, install it into scratch projects, build dist/ and start
 * processes, and most of the suite's time is theirs. What they repeat is made once per state of
 * the sources and shared by every file and worker, on disk under a lock (test/helpers/packed.ts):
 * the tarball, the dist/ `npm pack` built for it (npm start's stop tests and test/release start
 * from a copy rather than compile again), and one install per set of dev dependencies. Each file
 * still runs alone; the first to need one of them makes it, unless `.ci/run` made them all ahead
 * (test/helpers/prefetch-packed.ts, beside the typecheck and the linters). The suite takes about
 * half the sum of its files' durations: replayed from a run's durations, the order a fresh clone
 * starts them in (by size, no results cached) ends within 1% of an even split of the two workers,
 * so only less work makes it shorter (the slowest file, test/recipes/typescript.test.ts, is a tenth).
 */
export default defineConfig({
  test: {
    // Two cores on CI: forks keep workers apart without oversubscribing.
    pool: 'forks',
    // Vitest's default is one worker less than the cores: one on CI's two. Much of the suite waits on
    // child processes (npm, the packed package, Chromium, the recipes' servers), so a second worker
    // halved it there: 207 s with one, 100 to 110 s with two, in three runs with no failure. A third
    // did not help once the suite grew: 400 s with three against 406 with two (2026-12-07).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: ISOLATED,
          // Files in one worker share its loaded modules: loading the server's modules and compiling
          // both contracts' validators again for each of 120 files took more CPU than the tests
          // themselves (suite 108 s → 41 s for test/api and test/unit). Tests keep no state in
          // modules; each makes its own server.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
