// The import layers and the cycle rule, through ESLint with the repository's own config: each
// fixture in test/fixtures/lint/ breaks one rule when linted as a file of the layer it names, and
// each layer's allowed imports pass.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/start'

const FIXTURES = join(ROOT, 'test', 'fixtures', 'lint')
// The fixtures folder is in the config's ignores (it breaks the rules on purpose); lintText with
// a filePath inside a layer is not ignored, and the cycle fixture is linted with ignores off.
const eslint = new ESLint({ cwd: ROOT })

async function lint(text: string, filePath: string, engine = eslint): Promise<Array<[string | null, string]>> {
  const [result] = await engine.lintText(text, { filePath: join(ROOT, filePath) })
  return result.messages.map((m) => [m.ruleId, m.message])
}

const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8')

const CORE_MAY = 'layers contract, model, sim, schemes, plots; any package but electron; Node builtins'
const RENDERER_MAY = 'layers contract, plots; packages vue, pinia, uplot, cytoscape, zod, yaml; no Node builtin'

const VIOLATIONS: Array<{ fixture: string; as: string; message: string }> = [
  {
    fixture: 'contract-imports-model.ts.txt',
    as: 'src-main/contract/lint-fixture.ts',
    message:
      'src-main/contract/lint-fixture.ts (contract) may not import src-main/model/units.ts (model). ' +
      'Layer contract may import no other layer; packages zod; no Node builtin.',
  },
  {
    fixture: 'contract-imports-yaml.ts.txt',
    as: 'src-main/contract/lint-fixture.ts',
    message:
      "src-main/contract/lint-fixture.ts (contract) may not import the package 'yaml'. " +
      'Layer contract may import no other layer; packages zod; no Node builtin.',
  },
  {
    fixture: 'model-imports-sim.ts.txt',
    as: 'src-main/model/lint-fixture.ts',
    message:
      'src-main/model/lint-fixture.ts (model) may not import src-main/sim/run.ts (sim). ' +
      'Layer model may import layers contract; packages zod; no Node builtin.',
  },
  {
    fixture: 'model-imports-node.ts.txt',
    as: 'src-main/model/lint-fixture.ts',
    message:
      "src-main/model/lint-fixture.ts (model) may not import the Node builtin 'node:fs': this layer also runs in a browser or worker. " +
      'Layer model may import layers contract; packages zod; no Node builtin.',
  },
  {
    fixture: 'sim-imports-core.ts.txt',
    as: 'src-main/sim/lint-fixture.ts',
    message:
      'src-main/sim/lint-fixture.ts (sim) may not import src-main/core/paths.ts (core). ' +
      'Layer sim may import layers model, contract; no package; no Node builtin.',
  },
  {
    fixture: 'core-imports-renderer.ts.txt',
    as: 'src-main/core/lint-fixture.ts',
    message: `src-main/core/lint-fixture.ts (core) may not import src-renderer/src/lib/format.ts (renderer). Layer core may import ${CORE_MAY}.`,
  },
  {
    fixture: 'core-imports-electron.ts.txt',
    as: 'src-main/core/lint-fixture.ts',
    message: `src-main/core/lint-fixture.ts (core) may not import the package 'electron'. Layer core may import ${CORE_MAY}.`,
  },
  {
    fixture: 'renderer-imports-core.ts.txt',
    as: 'src-renderer/src/lib/lint-fixture.ts',
    message: `src-renderer/src/lib/lint-fixture.ts (renderer) may not import src-main/core/paths.ts (core). Layer renderer may import ${RENDERER_MAY}.`,
  },
  {
    fixture: 'renderer-vue-imports-core.vue.txt',
    as: 'src-renderer/src/components/LintFixture.vue',
    message: `src-renderer/src/components/LintFixture.vue (renderer) may not import src-main/core/paths.ts (core). Layer renderer may import ${RENDERER_MAY}.`,
  },
  {
    fixture: 'renderer-imports-node.ts.txt',
    as: 'src-renderer/src/lib/lint-fixture.ts',
    message:
      "src-renderer/src/lib/lint-fixture.ts (renderer) may not import the Node builtin 'node:path': this layer also runs in a browser or worker. " +
      `Layer renderer may import ${RENDERER_MAY}.`,
  },
  {
    fixture: 'target-imports-target.ts.txt',
    as: 'src-main/core/targets/sim/lint-fixture.ts',
    message:
      'src-main/core/targets/sim/lint-fixture.ts may not import src-main/core/targets/bmv2/telemetry.ts: a target kind imports no other kind; ' +
      'put what targets share directly in src-main/core/targets/ or in src-main/core/targets/shared/.',
  },
  {
    fixture: 'scheme-imports-scheme.ts.txt',
    as: 'src-main/schemes/hula/lint-fixture.ts',
    message:
      'src-main/schemes/hula/lint-fixture.ts may not import src-main/schemes/ecmp/controlplane.ts: a scheme imports no other scheme; ' +
      'put what schemes share in src-main/schemes/shared/ (only conga-prime may import conga).',
  },
]

// One file per layer, with imports that layer may make.
const ALLOWED: Array<{ as: string; text: string }> = [
  { as: 'src-main/contract/lint-fixture.ts', text: "export { z } from 'zod'\nexport { SpecError } from './schemas'\n" },
  { as: 'src-main/model/lint-fixture.ts', text: "export { SpecError } from '../contract/schemas'\nexport { z } from 'zod'\n" },
  { as: 'src-main/sim/lint-fixture.ts', text: "export { parseRate } from '../model/units'\nexport type { SpecError } from '../contract/schemas'\n" },
  { as: 'src-main/schemes/hula/lint-fixture.ts', text: "export { be } from '../shared/pktgen'\nexport { simulate } from '../../sim/run'\n" },
  { as: 'src-main/schemes/conga-prime/lint-fixture.ts', text: "export { CONGA_PARAMS } from '../conga/params'\n" },
  { as: 'src-main/plots/lint-fixture.ts', text: "export { SpecError } from '../contract/schemas'\nexport { parseRate } from '../model/units'\n" },
  { as: 'src-main/core/lint-fixture.ts', text: "export { readFileSync } from 'node:fs'\nexport { simulate } from '../sim/run'\nexport { formatNs } from '../plots/format'\n" },
  { as: 'src-main/core/targets/sim/lint-fixture.ts', text: "export type { TargetKind } from '../driver'\n" },
  { as: 'src-main/cli/lint-fixture.ts', text: "export { userDataDir } from '../core/paths'\nexport * from '../server/server'\n" },
  { as: 'src-main/server/lint-fixture.ts', text: "export { userDataDir } from '../core/paths'\nexport { WebSocketServer } from 'ws'\n" },
  { as: 'src-main/electron/lint-fixture.ts', text: "export { app } from 'electron'\nexport { userDataDir } from '../core/paths'\n" },
  { as: 'src-main/preload/lint-fixture.ts', text: "export { contextBridge } from 'electron'\nexport * from '../contract/api'\n" },
  { as: 'src-renderer/src/lib/lint-fixture.ts', text: "export { SpecError } from '@contract/schemas'\nexport { formatNs } from '@plots/format'\nexport { ref } from 'vue'\n" },
  { as: 'scripts/lint-fixture.ts', text: "export { userDataDir } from '../src-main/core/paths'\nexport { formatPercent } from '../src-renderer/src/lib/format'\n" },
]

// Loading the config and the first import graph takes seconds on a busy machine; the guard is for a hang.
describe('lint: import layers', { timeout: 120_000 }, () => {
  for (const v of VIOLATIONS) {
    it(`refuses ${v.fixture.replace(/\.(ts|vue)\.txt$/, '')}`, async () => {
      expect(await lint(fixture(v.fixture), v.as)).toEqual([['p4lab/layers', v.message]])
    })
  }

  for (const a of ALLOWED) {
    it(`lets ${a.as} make its allowed imports`, async () => {
      expect(await lint(a.text, a.as)).toEqual([])
    })
  }

  it('refuses a two-file import cycle, a type-only import included', async () => {
    const unignored = new ESLint({ cwd: ROOT, ignore: false })
    const cycle = 'test/fixtures/lint/cycle/a.ts -> test/fixtures/lint/cycle/b.ts -> test/fixtures/lint/cycle/a.ts'
    const message =
      `Import cycle: ${cycle}. Move what both sides need into a file that imports neither (for shared types, a small types file).`
    const a = 'test/fixtures/lint/cycle/a.ts'
    const b = 'test/fixtures/lint/cycle/b.ts'
    expect(await lint(readFileSync(join(ROOT, a), 'utf8'), a, unignored)).toEqual([['p4lab/no-import-cycle', message]])
    expect(await lint(readFileSync(join(ROOT, b), 'utf8'), b, unignored)).toEqual([
      ['p4lab/no-import-cycle', message.replace(cycle, 'test/fixtures/lint/cycle/b.ts -> test/fixtures/lint/cycle/a.ts -> test/fixtures/lint/cycle/b.ts')],
    ])
    // Without a's import of b there is no cycle: the rule reads a from the text being linted.
    expect(await lint('export const a = (): number => 1\n', a, unignored)).toEqual([])
  })
})
