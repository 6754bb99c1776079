import { resolve } from 'node:path'
import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // Renderer tests render the app's single-file components (to HTML, with Vue's server renderer).
  plugins: [vue()],
  resolve: { alias: { '@contract': resolve(import.meta.dirname, 'src-main/contract'), '@plots': resolve(import.meta.dirname, 'src-main/plots') } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The machine has two cores; the simulator tests are CPU-bound.
    maxWorkers: 2,
  },
})
