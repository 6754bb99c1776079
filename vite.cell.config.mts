import { resolve } from 'node:path'
import { defineConfig } from 'vite'

// The Slurm cell runner as one self-contained ES module (the simulator, the schemes and zod
// inside; only Node's built-ins outside): it is uploaded alone to a cluster and run with its Node.
export default defineConfig({
  build: {
    outDir: resolve(import.meta.dirname, 'out/cell'),
    emptyOutDir: true,
    target: 'node20',
    ssr: resolve(import.meta.dirname, 'src-main/core/slurm/cell.ts'),
    minify: false,
    rollupOptions: { output: { format: 'es', entryFileNames: 'p4lab-cell.mjs', codeSplitting: false } },
  },
  ssr: { noExternal: true, target: 'node' },
})
