// What an archive holds of the P4 its runs built: per program, the sources each build compiled
// (kept with the artifact, p4build/kept.ts, checked against the sha256s its row recorded), the
// compiled outputs, and the variant import restores. Only a build that kept no sources (made
// before they were kept) falls back to the variant or p4/ as they are at export, and the notes
// say whether those still match what it compiled.
import { cpSync, existsSync } from 'node:fs'
import { basename, join, sep } from 'node:path'
import { isRemoteKind } from '../targets/kinds'
import type { RemoteKind, TestbedKind } from '../../contract/testbeds'
import { KEPT_SOURCES, readKeptSources, recordedSources, type KeptSources } from '../p4build/kept'
import { programPath, readVariant, type VariantInfo } from '../p4build/programs'
import { collectSources, type ProgramSources } from '../p4build/sources'
import type { ExperimentSpec } from '../spec'
import type { ArtifactRow } from '../store/artifacts'
import { configKey, type RunRow, type Store } from '../store'
import { runList } from './testbeds'

export interface ProgramRuns {
  kind: RemoteKind
  scheme: string
  program: string
  /** The runs' fabrics by config key, each with the earliest revision that ran it. */
  ranOn: Map<string, { rev: number; spec: ExperimentSpec }>
}

interface Build {
  key: string | null
  runs: number[]
  row?: ArtifactRow
  kept?: KeptSources
  /** Why its sources are not in the archive as compiled. */
  why?: string
}

export interface P4Archive {
  programs: ProgramRuns[]
  artifactKeys: string[]
}

const KEY = /^[0-9a-f]{64}$/

function shortKey(key: string): string {
  return key.slice(0, 12)
}

/** How the sources there now compare with those a build recorded. */
function compareWithRecorded(now: ProgramSources, recorded: ArtifactRow['outputs']['sources']): { same: boolean; text: string } {
  const was = new Map(recorded.map((s) => [s.path, s.sha256]))
  const is = new Map(now.files.map((f) => [f.path, f.sha256]))
  const changed = [...was].filter(([p, h]) => is.has(p) && is.get(p) !== h).map(([p]) => p)
  const gone = [...was.keys()].filter((p) => !is.has(p))
  const added = [...is.keys()].filter((p) => !was.has(p))
  if (changed.length + gone.length + added.length === 0) return { same: true, text: 'their sha256s match what the build recorded: they are exactly what it compiled' }
  const parts = [changed.length ? `changed: ${changed.join(', ')}` : '', gone.length ? `no longer there: ${gone.join(', ')}` : '', added.length ? `not in the build: ${added.join(', ')}` : ''].filter(Boolean)
  return { same: false, text: `their sha256s differ from what the build recorded (${parts.join('; ')}): they are not what it compiled` }
}

/**
 * Writes p4/, artifacts/ and the P4 notes for the runs on P4 targets. `put` writes a file of
 * the archive; `stage` is the archive's folder.
 */
export function archiveP4(o: {
  store: Store
  experimentId: number
  spec: ExperimentSpec
  currentRevision: number
  runs: readonly RunRow[]
  kindOf: (run: RunRow) => TestbedKind
  dataDir: string
  p4Dir: string
  stage: string
  put: (path: string, data: string) => void
  notes: string[]
}): P4Archive {
  const { store, put, notes } = o
  const artifactKeys = new Set<string>()
  // Per program, the fabrics its runs ran on (their own records, by config): an edit since
  // the runs must not make their control plane that of a fabric they never deployed.
  const programs = new Map<string, ProgramRuns & { runs: RunRow[] }>()
  for (const r of o.runs) {
    const kind = o.kindOf(r)
    if (!isRemoteKind(kind)) continue
    const facts = r.facts ?? {}
    // The scheme's build and, on Tofino, the cabling check's: both are what the run deployed.
    for (const k of [facts.artifact, facts.checkArtifact]) if (typeof k === 'string' && KEY.test(k)) artifactKeys.add(k)
    if (typeof facts.program !== 'string') continue
    const p = programs.get(`${kind}:${r.scheme}`) ?? { kind, scheme: r.scheme, program: facts.program, ranOn: new Map(), runs: [] as RunRow[] }
    programs.set(`${kind}:${r.scheme}`, p)
    p.runs.push(r)
    const ran = (store.getRunRecord(r.id)?.spec ?? o.spec) as ExperimentSpec
    const key = configKey(ran)
    const rev = r.revision ?? o.currentRevision
    const seen = p.ranOn.get(key)
    if (!seen || rev < seen.rev) p.ranOn.set(key, { rev, spec: ran })
  }

  // Each artifact's kept sources, read and checked once.
  const keptOf = new Map<string, { row?: ArtifactRow; kept?: KeptSources; why?: string }>()
  const kept = (key: string) => {
    let k = keptOf.get(key)
    if (!k) {
      const row = store.getArtifact(key)
      if (!row) k = { why: 'is not stored here' }
      else {
        const r = readKeptSources(join(o.dataDir, 'artifacts', key), row)
        k = 'files' in r ? { row, kept: r } : { row, why: r.reason }
      }
      keptOf.set(key, k)
    }
    return k
  }

  for (const p of programs.values()) {
    const name = basename(p.program, '.p4')
    const folder = `p4/${p.kind}-${name}`
    const byKey = new Map<string | null, number[]>()
    for (const r of p.runs) {
      const a = r.facts?.artifact
      const key = typeof a === 'string' && KEY.test(a) ? a : null
      byKey.set(key, [...(byKey.get(key) ?? []), r.id])
    }
    const builds: Build[] = [...byKey].map(([key, runs]) => (key === null ? { key, runs, why: 'recorded no build' } : { key, runs, ...kept(key) }))
    builds.sort((a, b) => a.runs[0] - b.runs[0])
    const keptBuilds = builds.filter((b) => b.kept)
    const where = (b: Build) => (keptBuilds.length === 1 ? folder : `${folder}/build-${shortKey(b.key!)}`)

    // What the runs compiled, one folder per build when there were several.
    for (const b of keptBuilds) for (const f of b.kept!.files) put(`${where(b)}/${f.path}`, f.text)
    if (builds.length > 1) {
      notes.push(`the ${p.kind} program ${name} ran as ${builds.length} builds: ${builds.map((b) => `${b.key ? `build ${shortKey(b.key)}` : 'no recorded build'} for ${runList(b.runs)}${b.kept ? ` (its sources: ${where(b)}/)` : ''}`).join('; ')}`)
    }

    // The variant import restores: what the latest run compiled, when that was the experiment's variant.
    const latest = builds.reduce((a, b) => (Math.max(...b.runs) > Math.max(...a.runs) ? b : a))
    const current = readVariant(o.dataDir, o.experimentId, { scheme: name, target: p.kind })
    let variantWritten = false
    if (latest.kept && latest.row?.program.startsWith('variant:')) {
      for (const f of latest.kept.files) put(`p4/variants/${p.kind}-${name}/${f.path}`, f.text)
      const info: VariantInfo = {
        ...(current?.info ?? { experimentId: o.experimentId, scheme: name, target: p.kind, copiedFrom: '', createdAt: latest.row.createdAt, updatedAt: latest.row.createdAt }),
        main: latest.row.outputs.main,
      }
      put(`p4/variants/${p.kind}-${name}/variant.json`, JSON.stringify(info, null, 2) + '\n')
      variantWritten = true
      if (current) {
        let now: ProgramSources | null = null
        try {
          now = collectSources(current.file)
        } catch {
          // An unreadable variant is not the one the runs compiled either.
        }
        if (!now || !compareWithRecorded(now, latest.row.outputs.sources).same) {
          notes.push(`the ${p.kind} variant of ${name} was edited after ${runList(latest.runs)}: p4/variants/${p.kind}-${name}/ holds what ${latest.runs.length === 1 ? 'that run' : 'those runs'} compiled (import restores it), not the edit`)
        }
      } else notes.push(`the ${p.kind} variant of ${name} is no longer stored here: p4/variants/${p.kind}-${name}/ holds what ${runList(latest.runs)} compiled`)
    }

    // Builds without their sources: the variant or the shipped program as it is now, said so.
    const unkept = builds.filter((b) => !b.kept)
    if (unkept.length === 0) continue
    let now: ProgramSources | null = null
    let at: string
    if (current) {
      if (!variantWritten) {
        cpSync(current.dir, join(o.stage, 'p4', 'variants', `${p.kind}-${name}`), { recursive: true })
        at = `p4/variants/${p.kind}-${name}/`
      } else at = `${folder}/current/`
      try {
        now = collectSources(current.file)
        if (variantWritten) for (const f of now.files) put(`${at}${f.path}`, f.text)
      } catch (err) {
        notes.push(`the ${p.kind} variant of ${name} cannot be read: ${(err as Error).message}`)
      }
    } else {
      // Found by name, not by the run's facts.program: a run recorded before p4/ had a folder
      // per program wrote `v1model/hula.p4`, which is now `hula/v1model/hula.p4`.
      const shipped = programPath(o.p4Dir, { scheme: name, target: p.kind })
      at = 'p4/'
      if (existsSync(shipped)) {
        now = collectSources(shipped)
        for (const f of now.files) put(`p4/${f.path}`, f.text)
      } else notes.push(`the ${p.kind} program ${p.program} is not in ${o.p4Dir}; its sources are not in the archive`)
    }
    if (!now) continue
    const what = `${at} holds the current ${current ? 'variant' : 'shipped program'} instead`
    for (const b of unkept) {
      const head = `the ${p.kind} program ${name}, ${b.key ? `build ${shortKey(b.key)} of ${runList(b.runs)}` : runList(b.runs)}`
      if (!b.row) notes.push(`${head} ${b.why}: ${what}, which cannot be checked against what it compiled`)
      else if (!recordedSources(b.row.outputs.sources)) notes.push(`${head}: ${b.why}; ${what}, which cannot be checked against what it compiled (its record of its sources is malformed)`)
      else if (b.row.outputs.sources.length === 0) notes.push(`${head}: ${b.why}; ${what}, which cannot be checked against what it compiled`)
      else notes.push(`${head}: ${b.why}; ${what}, and ${compareWithRecorded(now, b.row.outputs.sources).text}`)
    }
  }

  // The compiled outputs, and the sources kept with each only when they are what it recorded.
  for (const key of [...artifactKeys].sort()) {
    const dir = join(o.dataDir, 'artifacts', key)
    if (!existsSync(dir)) {
      notes.push(`artifact ${key} is not in ${join(o.dataDir, 'artifacts')}; its outputs are not in the archive`)
      continue
    }
    const keptSources = join(dir, KEPT_SOURCES)
    cpSync(dir, join(o.stage, 'artifacts', key), { recursive: true, filter: (src) => src !== keptSources && !src.startsWith(keptSources + sep) })
    const k = kept(key).kept
    if (k) for (const f of k.files) put(`artifacts/${key}/${KEPT_SOURCES}/${f.path}`, f.text)
  }
  return { programs: [...programs.values()], artifactKeys: [...artifactKeys] }
}
