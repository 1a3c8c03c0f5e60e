import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{common,model,families,store,engine,jobs,runtime,server,cli,client,explorer,devnet,test}/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    // Hang detectors, not budgets: no test asserts a duration, and a loaded 2-core machine (CI
    // beside other work, scripts/stress.sh) runs the slowest tests (~30 s alone) several times
    // slower. A test needing more says so and why.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: 'forks',
    globalSetup: ['test/helpers/globalSetup.ts'],
  },
});
