// The names of every method and event in the contract, with no dependencies, so the
// sandboxed preload can expose exactly these and nothing else without bundling zod.
export const METHOD_NAMES = [
  'app.info',
  'templates.list',
  'schemes.list',
  'experiments.list',
  'experiments.setTags',
  'experiments.setNotes',
  'experiments.setAside',
  'experiments.restore',
  'search.runs',
  'experiments.get',
  'experiments.validate',
  'experiments.create',
  'experiments.update',
  'experiments.rename',
  'experiments.saveAs',
  'experiments.revisions',
  'experiments.run',
  'experiments.fabric',
  'experiments.layout',
  'experiments.saveLayout',
  'runs.list',
  'runs.setTags',
  'runs.setNotes',
  'runs.setAside',
  'runs.restore',
  'runs.get',
  'runs.ranWith',
  'runs.cancel',
  'runs.series',
  'runs.seriesDefs',
  'runs.fabric',
  'runs.events',
  'runs.logs',
  'runs.flows',
  'testbeds.list',
  'testbeds.get',
  'testbeds.create',
  'testbeds.update',
  'testbeds.delete',
  'testbeds.check',
  'testbeds.trust',
  'testbeds.setMapping',
  'testbeds.previewMapping',
  'testbeds.pickKeyFile',
  'clusters.list',
  'clusters.save',
  'clusters.delete',
  'clusters.check',
  'clusters.trust',
  'slurm.submit',
  'slurm.jobs',
  'slurm.cancel',
  'pipelines.list',
  'pipelines.source',
  'pipelines.render',
  'pipelines.artifacts',
  'pipelines.build',
  'pipelines.variant',
  'pipelines.saveVariant',
  'sweeps.matrix',
  'sweeps.rerunFailed',
  'sweeps.resume',
  'experiments.runAgain',
  'compare.query',
  'compare.runs',
  'archive.export',
  'archive.import',
] as const

export const EVENT_NAMES = ['run.status', 'run.progress', 'run.series', 'run.telemetry', 'run.points', 'run.event', 'slurm.progress'] as const

export type MethodName = (typeof METHOD_NAMES)[number]
export type EventName = (typeof EVENT_NAMES)[number]

/** Channel prefix for Electron IPC; the WebSocket bridge uses the bare names. */
export const IPC_PREFIX = 'p4lab:'
export const IPC_EVENT_CHANNEL = 'p4lab:event'

/**
 * Web mode's archive endpoints (same token as the page): an export is a download, an import an
 * upload, so the file is one the user picked in the browser, never a server path the page names.
 */
export const ARCHIVE_HTTP = { export: '/archive/export/', import: '/archive/import' } as const
