import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import vue from 'eslint-plugin-vue'
import vueParser from 'vue-eslint-parser'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import p4lab from './eslint-rules/index.mjs'
import { aliasesFromTsconfig } from './eslint-rules/imports.mjs'

const root = dirname(fileURLToPath(import.meta.url))
// The import aliases (@contract, @plots) as the two TypeScript projects resolve them.
const aliases = aliasesFromTsconfig(join(root, 'tsconfig.node.json'), join(root, 'tsconfig.web.json'))

// The layers and what each may import (p4lab/layers). A file outside every layer (scripts/, bench/,
// test/, the config files) may import anything. Type-only imports count like the others.
//
//   layer      folder             may import layers                          packages                Node builtins
//   contract   src-main/contract  -                                          zod                     no
//   model      src-main/model     contract                                   zod                     no
//   sim        src-main/sim       model, contract                            -                       no
//   schemes    src-main/schemes   model, sim, contract                       -                       no
//   plots      src-main/plots     contract, model                            -                       no
//   core       src-main/core      contract, model, sim, schemes, plots       any but electron        yes
//   server     src-main/server    core and what core may                     any but electron        yes
//   cli        src-main/cli       server, core and what core may             any but electron        yes
//   electron   src-main/electron  core and what core may                     any                     yes
//   preload    src-main/preload   contract                                   electron                no
//   renderer   src-renderer       contract (@contract), plots (@plots)       vue, pinia, uplot,      no
//                                                                            cytoscape, zod, yaml
//
// Isolated folders: a folder of src-main/schemes/ (one scheme) imports no other scheme's folder,
// only schemes/shared/ and the files directly in schemes/; conga-prime builds on conga and may
// import it. A folder of src-main/core/targets/ (one target kind) imports no other kind's folder;
// what kinds share lives directly in core/targets/ or in core/targets/shared/.
// And no import cycle anywhere (p4lab/no-import-cycle).
const BELOW_CORE = ['contract', 'model', 'sim', 'schemes', 'plots']
const LAYERS = {
  contract: { folders: ['src-main/contract'], imports: [], packages: ['zod'], builtins: false },
  model: { folders: ['src-main/model'], imports: ['contract'], packages: ['zod'], builtins: false },
  sim: { folders: ['src-main/sim'], imports: ['model', 'contract'], packages: [], builtins: false },
  schemes: { folders: ['src-main/schemes'], imports: ['model', 'sim', 'contract'], packages: [], builtins: false },
  plots: { folders: ['src-main/plots'], imports: ['contract', 'model'], packages: [], builtins: false },
  core: { folders: ['src-main/core'], imports: BELOW_CORE, packages: '*', deniedPackages: ['electron'], builtins: true },
  server: { folders: ['src-main/server'], imports: ['core', ...BELOW_CORE], packages: '*', deniedPackages: ['electron'], builtins: true },
  // `p4lab serve` starts the server.
  cli: { folders: ['src-main/cli'], imports: ['server', 'core', ...BELOW_CORE], packages: '*', deniedPackages: ['electron'], builtins: true },
  electron: { folders: ['src-main/electron'], imports: ['core', ...BELOW_CORE], packages: '*', builtins: true },
  preload: { folders: ['src-main/preload'], imports: ['contract'], packages: ['electron'], builtins: false },
  renderer: { folders: ['src-renderer'], imports: ['contract', 'plots'], packages: ['vue', 'pinia', 'uplot', 'cytoscape', 'zod', 'yaml'], builtins: false },
}
const ISOLATED = [
  {
    folder: 'src-main/schemes',
    why: 'a scheme imports no other scheme; put what schemes share in src-main/schemes/shared/ (only conga-prime may import conga).',
    shared: ['shared'],
    allow: { 'conga-prime': ['conga'] },
  },
  {
    folder: 'src-main/core/targets',
    why: 'a target kind imports no other kind; put what targets share directly in src-main/core/targets/ or in src-main/core/targets/shared/.',
    shared: ['shared'],
  },
]

export default tseslint.config(
  // test/fixtures/lint/ breaks the import rules on purpose; test/lint/layers.test.ts lints it.
  { ignores: ['out/**', 'node_modules/**', 'test-artifacts/**', '.cache/**', 'test/fixtures/lint/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parser: vueParser, parserOptions: { parser: tseslint.parser, sourceType: 'module' } },
  },
  {
    // TypeScript checks names itself; no-undef only misfires on DOM and Node types.
    files: ['**/*.ts', '**/*.vue'],
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  {
    files: ['**/*.ts', '**/*.mts', '**/*.vue', '**/*.mjs', '**/*.cjs'],
    plugins: { p4lab },
    rules: {
      'p4lab/layers': ['error', { root, aliases, layers: LAYERS, isolated: ISOLATED }],
      'p4lab/no-import-cycle': ['error', { root, aliases }],
    },
  },
  {
    files: ['bin/**/*.cjs', 'scripts/**/*.mjs', 'bench/**/*.mjs', '.ci/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
)
