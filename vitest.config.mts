import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { alias: { '@contract': resolve(import.meta.dirname, 'src-main/contract'), '@plots': resolve(import.meta.dirname, 'src-main/plots') } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The machine has two cores; the simulator tests are CPU-bound.
    maxWorkers: 2,
  },
})
