import { resolve } from 'node:path'
import { defineConfig } from 'vite'

// The simulator worker as one self-contained CommonJS file beside the main bundle (only Node's
// built-ins outside). Built apart from electron-vite's main bundle so that it shares no chunk
// with the app: what the app imports cannot move a module into, or rename, a chunk the worker
// loads, and out/main/sim-worker.js (hashed into the simulator's fingerprint) changes only when
// the worker's own code does.
export default defineConfig({
  build: {
    outDir: resolve(import.meta.dirname, 'out/main'),
    // electron-vite has just written the rest of out/main.
    emptyOutDir: false,
    target: 'node20',
    ssr: resolve(import.meta.dirname, 'src-main/core/targets/sim/worker.ts'),
    minify: false,
    rollupOptions: { output: { format: 'cjs', entryFileNames: 'sim-worker.js', codeSplitting: false } },
  },
  ssr: { noExternal: true, target: 'node' },
})
