import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local for the whole run (it takes seconds to start); each test file makes its own table.
    globalSetup: ['test/support/global-setup.ts'],
    // Load tests run alone (test/support/load-lock.ts).
    setupFiles: ['test/support/each-file.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
