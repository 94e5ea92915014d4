import { defineConfig } from 'vitest/config';

const heavy = [
  'services/embedded/src/reliability/**/*.int.test.ts',
  'services/embedded/src/worker-kill.int.test.ts',
  'services/embedded/src/embedded-kill.int.test.ts',
];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['libs/**/src/**/*.test.ts', 'services/**/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'int',
          include: ['libs/**/src/**/*.int.test.ts', 'services/**/src/**/*.int.test.ts', 'scripts/**/*.int.test.ts'],
          exclude: ['**/node_modules/**', ...heavy],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Two cores: files run two at a time, each on its own fresh database.
          maxWorkers: 2,
        },
      },
      {
        test: {
          // The whole system under attack, and worker processes killed at random: each needs the
          // machine to itself (beside other files their timing-bound checks starved), so they run
          // one file at a time in steps of their own (scripts/test-all.mjs).
          name: 'heavy',
          include: heavy,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: 1,
        },
      },
    ],
  },
});
