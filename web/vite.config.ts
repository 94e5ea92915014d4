import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { fileURLToPath } from 'node:url';
import { precompress } from './src/build/precompress.vite.ts';
import { japanCoastlinePlugin } from './src/features/sales-map/japan-coastline.vite.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  base: '/app/',
  plugins: [
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      // Loaders travel with their page: the first page then loads only its own feature's code.
      codeSplittingOptions: {
        defaultBehavior: [['loader', 'component'], ['pendingComponent'], ['errorComponent'], ['notFoundComponent']],
      },
      routesDirectory: here('./src/routes'),
      generatedRouteTree: here('./src/routeTree.gen.ts'),
      routeFileIgnorePattern: '\\.test\\.tsx?$',
    }),
    react(),
    // The sales and segment maps' basemap: Japan only, cut out of world-atlas at build time.
    japanCoastlinePlugin(),
    // Brotli and gzip copies of the build's text files, which the gateway serves as they are.
    precompress(),
  ],
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    // Chrome and Edge preload modules themselves, as do Safari 17+ and Firefox 115+; an older browser still
    // loads every chunk, only without the preload. The polyfill (0.5 KiB) was on the first page.
    modulePreload: { polyfill: false },
    rollupOptions: {
      // The redirect bridge is its own tiny page: MSAL's silent renewals load it in an iframe.
      input: { main: here('./index.html'), redirect: here('./auth/redirect/index.html') },
      output: {
        // React, the router and the query client, and Mantine with what it builds on, as two chunks instead of
        // about seventy small ones: a phone's first screen asked for 182 files, six at a time over HTTP/1.1, and
        // on a slow mobile network their round trips were most of its wait (docs/benchmarks.md, 2026-12-01).
        codeSplitting: {
          groups: [
            {
              name: 'framework',
              test: /node_modules[\\/](react|react-dom|scheduler|@tanstack[\\/](react-query|query-core|react-router|router-core|history|store|react-store))[\\/]/,
              priority: 2,
            },
            {
              name: 'mantine',
              test: /node_modules[\\/](@mantine[\\/](core|hooks)|@floating-ui[\\/][^\\/]+|react-remove-scroll[^\\/]*|react-style-singleton|use-callback-ref|use-sidecar|react-number-format|react-textarea-autosize|clsx|tslib|get-nonce|detect-node-es)[\\/]/,
              priority: 1,
            },
          ],
        },
      },
    },
  },
  server: { port: 5173 },
});
