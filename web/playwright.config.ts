import { defineConfig } from '@playwright/test';

/** Debian's Chromium; a browser is never downloaded. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: './e2e',
  testMatch: '*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  // One system, one browser at a time: the machine has two cores shared with the services under test.
  workers: 1,
  fullyParallel: false,
  // No retries: a flaky test is a failing test. (The last flake, a page losing its open dialog or step,
  // was the frame remounting the page while a full-page screenshot narrowed the viewport.)
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  outputDir: './test-results/artifacts',
  reporter: [['list']],
  use: {
    ignoreHTTPSErrors: true,
    locale: 'ja-JP',
    timezoneId: 'Asia/Tokyo',
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'off',
    navigationTimeout: 45_000,
    actionTimeout: 20_000,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs },
  },
});
