import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{common,model,families,store,engine,jobs,server,cli,client,explorer,test}/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/helpers/globalSetup.ts'],
  },
});
