// Builds the dashboard page into dashboard/dist (served by tuttid; see docs/dashboard.md).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or styles: the page's Content-Security-Policy allows only its own files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
