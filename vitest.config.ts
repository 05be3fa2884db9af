import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Two cores on CI: forks keep workers isolated without oversubscribing.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
