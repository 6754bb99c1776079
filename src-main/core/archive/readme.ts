// README.md of an archive: what was run, where, what came out, and how to read the files
// without p4lab.
import { COMPLETE_SHARE, completionNumbers } from '../../contract'
import type { ExperimentSpec } from '../spec'
import type { RunRow } from '../store'
import type { Manifest } from './manifest'
import type { ArchivePlot } from './plots'

function ms(ns: number | null | undefined): string {
  return ns === null || ns === undefined ? '-' : `${Number((ns / 1e6).toPrecision(4))} ms`
}

export function archiveReadme(m: Omit<Manifest, 'files'>, spec: ExperimentSpec, runs: RunRow[], compareText: string | null, plots: ReadonlyArray<Pick<ArchivePlot, 'path' | 'title'>>, files: string[]): string {
  const byStatus = new Map<string, number>()
  for (const r of runs) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1)
  // Runs with results: done ones, and incomplete ones (shown as such, with their numbers and likely cause).
  const done = runs.filter((r) => r.status === 'done' || r.status === 'incomplete')
  const incomplete = runs.filter((r) => r.status === 'incomplete')
  // 'What was run' is the current text; runs of an earlier one (more flows, another fabric) or
  // on another testbed say so, as \`p4lab show\` does.
  const stale = runs.filter((r) => r.stale)
  const staleNote = stale.length
    ? `; ${stale.length} of them (${stale.length === 1 ? 'run' : 'runs'} ${stale.map((r) => r.id).join(', ')}) ${stale.length === 1 ? 'is stale: it' : 'are stale: they'} ran with an earlier text or on another testbed than the one above (what each ran with: \`runs/run-<id>.json\`; the texts: \`experiment/revisions/\`)`
    : ''
  const revisionCell = (r: RunRow) => (stale.length ? ` ${r.revision ?? '-'}${r.stale ? ' (stale)' : ''} |` : '')
  const lines = [
    `# ${m.experiment.name}: p4lab result archive`,
    '',
    spec.description ? `${spec.description}\n` : '',
    `Written by p4lab ${m.p4labVersion} on ${m.createdAt}. Every file's sha256 is in \`manifest.json\`.`,
    '',
    '## What was run',
    '',
    `- Topology: ${spec.topology.kind} (${JSON.stringify(spec.topology)})`,
    `- Schemes: ${spec.schemes.join(', ')}`,
    `- Workload: ${spec.workload.kind}${'flows' in spec.workload && spec.workload.flows ? `, ${spec.workload.flows} flows per run` : ''}, loads ${spec.workload.loads.join(', ')}`,
    `- Seeds: ${spec.seeds.join(', ')}`,
    `- Scheme parameters: ${Object.keys(spec.params).length ? Object.entries(spec.params).map(([k, v]) => `${k}=${v}`).join(', ') : 'defaults'}`,
    `- Transport: ${spec.transport.kind}; stop after ${spec.stopAfterNs / 1e9} s`,
    `- Targets: ${m.experiment.targets.join(', ') || '-'}`,
    `- Runs: ${runs.length} (${[...byStatus].map(([s, n]) => `${n} ${s}`).join(', ') || 'none'})${staleNote}`,
    '',
    'The experiment file is `experiment/experiment.yaml`; `experiment/spec.json` is the same after',
    'validation, with every unit normalised (rates in bit/s, sizes in bytes, times in ns).',
    '',
    '## Results',
    '',
    'Flow completion times (FCT) per run; small flows are under 100 KB, large over 10 MB; percentiles are nearest-rank.',
    `A run is done when at least ${COMPLETE_SHARE * 100} % of its flows finished; a run that went to its end with fewer is`,
    '*incomplete*: its FCTs describe only the flows that finished, and the comparison leaves it out.',
    '',
    `| scheme | load | seed |${stale.length ? ' revision |' : ''} target | status | flows finished | mean FCT | p99 FCT |`,
    `|---|---|---|${stale.length ? '---|' : ''}---|---|---|---|---|`,
    ...done.map((r) => {
      const finished = r.completion ? `${r.completion.finished}/${r.completion.flows}` : r.stats ? `${r.stats.finished}/${r.stats.flows}` : '-'
      return `| ${r.scheme} | ${r.load} | ${r.seed} |${revisionCell(r)} ${r.target} | ${r.status} | ${finished} | ${ms(r.stats?.meanNs)} | ${ms(r.stats?.p99Ns)} |`
    }),
    '',
  ]
  if (incomplete.length > 0) {
    lines.push(
      '### Incomplete runs',
      '',
      ...incomplete.map((r) => `- ${r.scheme}, load ${r.load}, seed ${r.seed} on ${r.target} (run ${r.id}): ${r.completion ? `${completionNumbers(r.completion)}. Likely cause: ${r.completion.cause ?? 'unknown'}` : (r.error ?? 'no numbers recorded')}`),
      '',
    )
  }
  if (compareText) lines.push('Mean FCT by scheme and load across seeds (`compare/mean-by-load.txt`):', '', '```', compareText.trimEnd(), '```', '')
  if (plots.length > 0) lines.push('Plots (SVG, the band is across seeds):', '', ...plots.map((p) => `- [${p.title}](${p.path})`), '')
  if (m.notes.length > 0) lines.push('## Notes', '', ...m.notes.map((n) => `- ${n}`), '')
  lines.push(
    '## Files',
    '',
    '- `manifest.json`: format version, p4lab version, tool versions, target facts, sha256 of every file.',
    '- `data/p4lab.sqlite`: the runs, flows, series, samples, events and logs as a SQLite database (p4lab\'s own schema; open it with `sqlite3`).',
    '- `data/*.csv`: the same as CSV. `runs.csv` has one row per run (tags, start and finish times, duration, status, how many',
    '  flows finished, failed or did not finish and, for an incomplete run, the likely cause, FCT statistics, counters and',
    '  target facts as JSON, FCT slowdown mean and percentiles); `flows.csv` every flow (sizes in bytes, times in ns; empty',
    '  finish = unfinished or failed; slowdown = FCT over the flow\'s ideal FCT alone on the idle fabric);',
    '  `series.csv` the telemetry series (kind, entity, unit) and `samples.csv` their samples (t in ns); `events.csv` the run events.',
    '- `logs/run-<id>.log`: each run\'s log (orchestrator steps, target output).',
    '- `testbed/<name>.json`: the testbed each run went to as the run found it when it started (`runs` lists them), without secrets',
    '  (no passwords, passphrases or key files). Runs that found it different (it was edited between them) have one file each,',
    '  `testbed/<name>/seen-N.json`; `stored.json` there, or `<name>.json` alone, is the testbed as stored at export for runs',
    '  recorded before p4lab kept what a run found. The notes say which runs saw which and what was changed since.',
    '- `p4/`, `artifacts/`, `controlplane/`: when runs used a P4 target, the sources each build compiled (`p4/<target>-<program>/`,',
    '  `build-<key>/` in it per build when the runs used several; the notes say which run used which), the compiled outputs with',
    '  the same sources (`artifacts/<key>/`, `sources/` checked against the sha256s the build recorded), the experiment\'s variant',
    '  as import restores it (`p4/variants/`: what the latest run compiled) and the per-switch control-plane files (of the fabric',
    '  the runs ran on; `controlplane/<target>-<scheme>/rev-N/` per revision when they ran on several). A build made before p4lab',
    '  kept its sources has the current variant or shipped program (`p4/<program>/...`) instead, and a note says whether they',
    '  still match what it compiled.',
    '- `compare/`: the comparison p4lab printed at export (`p4lab compare`), as text and JSON.',
    '- `plots/*.svg`: that comparison drawn as p4lab\'s compare view draws it: mean FCT vs load per scheme with the band',
    '  across seeds (`mean-fct-by-load.svg`, the rows of `compare/mean-by-load.*`), p99 FCT vs load (`p99-fct-by-load.svg`)',
    '  and mean FCT normalised to the first scheme (`mean-fct-normalised.svg`, 1 = that scheme).',
    '',
    'To reproduce: `p4lab import <archive>`, then "Run again" in the app (or `p4lab run experiment/experiment.yaml`).',
    '',
    '<details><summary>All files</summary>',
    '',
    ...files.map((f) => `- ${f}`),
    '',
    '</details>',
    '',
  )
  return lines.join('\n')
}
