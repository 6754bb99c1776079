import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import { build, type Plugin } from 'vite'
import vue from '@vitejs/plugin-vue'

/**
 * Builds the simulator worker (vite.worker.config.mts) into out/main once the main bundle is
 * written, so that every way electron-vite builds main (build, preview, dev) leaves the worker
 * beside it.
 */
function simWorker(): Plugin {
  return {
    name: 'p4lab-sim-worker',
    async closeBundle() {
      await build({ configFile: resolve(__dirname, 'vite.worker.config.mts'), logLevel: 'warn' })
    },
  }
}

// Three bundles. "main" holds the Node entries: the Electron shell and the CLI/server; they
// share chunks, and only the shell imports electron. The simulator worker is built apart,
// self-contained, beside them (vite.worker.config.mts, by the simWorker plugin).
export default defineConfig({
  main: {
    plugins: [simWorker()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          cli: resolve(__dirname, 'src-main/cli/main.ts'),
        },
      },
    },
  },
  preload: {
    // A sandboxed renderer can only load a CommonJS preload.
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    resolve: { alias: { '@contract': resolve(__dirname, 'src-main/contract'), '@plots': resolve(__dirname, 'src-main/plots') } },
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
    plugins: [vue()],
  },
})
