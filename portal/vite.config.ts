// The portal's production build: served by the API under /portal/ (api/src/portal), so every
// asset address starts with that base. Pages are split into chunks loaded on navigation.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/portal/',
  plugins: [react()],
  build: {
    outDir: 'dist/app',
    emptyOutDir: true,
    // The API's CSP allows scripts and styles from its own origin only: no inline module
    // preload polyfill, no data: URLs for small assets.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: { port: 5173, strictPort: true },
});
