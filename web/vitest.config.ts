import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    // userEvent drives Mantine's inputs key by key; on a loaded 2-core CI machine one test can take well
    // over vitest's 5 s default, and a test cut off at its timeout keeps clicking in the next test's DOM.
    testTimeout: 30_000,
  },
});
