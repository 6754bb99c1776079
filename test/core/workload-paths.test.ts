// Paths belong to the user, not to the page: a workload file named in an experiment is read
// only from the workloads folder or the experiment's own folder, and no error carries a
// file's contents. Through experiments.validate as the renderer calls it (the real dispatch).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatch, type Core } from '../../src-main/core'
import { workloadsDir } from '../../src-main/core/paths'
import { parseExperiment } from '../../src-main/core/spec'
import { tempCore } from '../helpers/core'

const SECRET = 'root:$y$j9T$not-a-cdf-but-a-secret:19000:0:99999:7:::'

const spec = (file: string) => `name: paths
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: cdf, file: ${JSON.stringify(file)}, load: [0.3], flows: 10 }
seeds: [1]
`

describe('workload files through experiments.validate', () => {
  let core: Core
  let dispatch: ReturnType<typeof createDispatch>
  let outside: string

  beforeAll(() => {
    core = tempCore().core
    dispatch = createDispatch(core.handlers)
    outside = join(mkdtempSync(join(tmpdir(), 'p4lab-secret-')), 'secret')
    writeFileSync(outside, `${SECRET}\nsecond line\n`)
  })
  afterAll(() => core.opts.store.close())

  const validate = async (params: unknown) => {
    const env = await dispatch('experiments.validate', params)
    return { env, text: JSON.stringify(env) }
  }

  it('refuses /etc/shadow as outside the allowed folders, without echoing a line of it', async () => {
    const { env, text } = await validate({ yaml: spec('/etc/shadow') })
    expect(env.ok).toBe(true)
    const res = (env as { result: { ok: boolean; errors: Array<{ path: string; message: string }> } }).result
    expect(res.ok).toBe(false)
    expect(res.errors).toHaveLength(1)
    expect(res.errors[0].path).toBe('workload.file')
    expect(res.errors[0].message).toMatch(/workload file \/etc\/shadow is outside the folders workloads are read from/)
    expect(res.errors[0].message).toContain(workloadsDir())
    if (existsSync('/etc/shadow')) {
      for (const line of readFileSync('/etc/shadow', 'utf8').split('\n').filter((l) => l.length > 3)) expect(text).not.toContain(line)
    }
  })

  it('never echoes a file outside the folders, by absolute path, by ../ or from /proc', async () => {
    for (const file of [outside, `../../../../../../../..${outside}`, '/proc/self/environ']) {
      const { env, text } = await validate({ yaml: spec(file) })
      expect(env.ok, file).toBe(true)
      expect(text, file).toMatch(/outside the folders workloads are read from/)
      expect(text, file).not.toContain('not-a-cdf-but-a-secret')
      expect(text, file).not.toContain('PATH=')
    }
  })

  it('takes a file name from the page, never a path that would make a folder its own', async () => {
    for (const file of [outside, '/etc/x.yaml', '../x.yaml', 'a/b.yaml']) {
      const { env } = await validate({ yaml: spec('secret'), file })
      expect(env, file).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
      const created = await dispatch('experiments.create', { yaml: spec('secret'), file })
      expect(created.ok, file).toBe(false)
    }
    // A plain name is fine; relative files then come from the workloads folder.
    const { env } = await validate({ yaml: spec('web-search.cdf'), file: 'mine.yaml' })
    expect(env).toMatchObject({ ok: true, result: { ok: true, runCount: 1 } })
  })
})

describe('workload files in an experiment file on disk', () => {
  it("reads the experiment's own folder, refuses a link out of it, and quotes no line of a bad CDF", () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-exp-folder-'))
    const secretDir = mkdtempSync(join(tmpdir(), 'p4lab-secret-'))
    writeFileSync(join(secretDir, 'secret'), `${SECRET}\n`)
    mkdirSync(join(dir, 'cdfs'))
    writeFileSync(join(dir, 'cdfs', 'mine.cdf'), '100 0\n1000 0.5\n10000 1\n')
    symlinkSync(join(secretDir, 'secret'), join(dir, 'cdfs', 'link.cdf'))
    writeFileSync(join(dir, 'cdfs', 'bad.cdf'), `100 0\n${SECRET}\n`)
    const opts = { file: join(dir, 'exp.yaml'), baseDir: dir, workloadsDir: workloadsDir(), testbeds: ['sim'] }

    expect(parseExperiment(spec('cdfs/mine.cdf'), opts).ok).toBe(true)
    const link = parseExperiment(spec('cdfs/link.cdf'), opts)
    expect(link.ok).toBe(false)
    expect(JSON.stringify(link)).toMatch(/outside the folders workloads are read from/)
    expect(JSON.stringify(link)).not.toContain('not-a-cdf-but-a-secret')
    const bad = parseExperiment(spec('cdfs/bad.cdf'), opts)
    expect(bad.ok).toBe(false)
    expect(JSON.stringify(bad)).toContain('bad.cdf:2: expected \\"<bytes> <cumulative probability>\\", found 1 field')
    expect(JSON.stringify(bad)).not.toContain('not-a-cdf-but-a-secret')
  })
})

describe('a stored experiment checked and copied from the page (from: its id)', () => {
  let core: Core
  let dispatch: ReturnType<typeof createDispatch>
  let id: number
  let dir: string
  const yaml = spec('mine.cdf')

  beforeAll(() => {
    core = tempCore().core
    dispatch = createDispatch(core.handlers)
    // As `p4lab run DIR/exp.yaml` stores it: the file's path, its CDF beside it.
    dir = mkdtempSync(join(tmpdir(), 'p4lab-cli-exp-'))
    writeFileSync(join(dir, 'mine.cdf'), '100 0\n1000 0.5\n10000 1\n')
    id = core.findOrCreateExperiment(yaml, join(dir, 'exp.yaml')).id
  })
  afterAll(() => core.opts.store.close())

  it('reads the workload files beside its own file, which the page cannot name', async () => {
    // By its file name alone the CDF is looked for in the workloads folder, and is not there.
    const byName = await dispatch('experiments.validate', { yaml, file: 'exp.yaml' })
    expect(byName).toMatchObject({ ok: true, result: { ok: false } })
    expect(JSON.stringify(byName)).toMatch(/mine\.cdf/)
    expect(await dispatch('experiments.validate', { yaml, from: id })).toMatchObject({ ok: true, result: { ok: true, errors: [], runCount: 1 } })
    expect(await dispatch('experiments.fabric', { yaml, from: id })).toMatchObject({ ok: true, result: { errors: [] } })
  })

  it('saves a copy that keeps the file, so its CDF stays found when it runs', async () => {
    const copy = await dispatch('experiments.saveAs', { yaml, from: id })
    expect(copy).toMatchObject({ ok: true, result: { name: 'paths (2)' } })
    const copyId = (copy as { result: { id: number } }).result.id
    expect(core.opts.store.getExperiment(copyId)!.file).toBe(join(dir, 'exp.yaml'))
    expect(core.runExperiment(copyId)).toHaveLength(1)
  })

  it('refuses a path for the copy, and names an experiment that does not exist', async () => {
    for (const file of ['/etc/x.yaml', '../x.yaml', join(dir, 'exp.yaml')]) {
      expect(await dispatch('experiments.saveAs', { yaml, file }), file).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
    }
    const gone = await dispatch('experiments.validate', { yaml, from: 999_999 })
    expect(gone).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect(JSON.stringify(gone)).toContain('999999')
  })
})
