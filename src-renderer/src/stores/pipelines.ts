import { defineStore } from 'pinia'
import { computed, ref, watch } from 'vue'
import type { P4Target, PipelineArtifact, PipelineProgram, PipelineRender, PipelineSource } from '@contract/index'
import { call, errorMessage } from '../client'
import { useExperimentsStore } from './experiments'

/** A place in a program's files the source view should scroll to and mark. */
export interface Reveal {
  file: string
  line: number
  /** Bumped on every request, so asking for the same line twice scrolls again. */
  seq: number
}

/** The Pipelines view: programs, the selected one's source, builds and the rendered control plane. */
export const usePipelinesStore = defineStore('pipelines', () => {
  const experiments = useExperimentsStore()

  /** Whether the main area shows the Pipelines view (instead of the experiments' views). */
  const active = ref(false)
  const programs = ref<PipelineProgram[]>([])
  const programsError = ref<string | null>(null)
  const selected = ref<{ scheme: string; target: P4Target } | null>(null)
  /** The experiment whose topology is rendered and whose variant is shown (null: none). */
  const experimentId = ref<number | null>(null)
  const source = ref<PipelineSource | null>(null)
  const sourceError = ref<string | null>(null)
  const artifacts = ref<PipelineArtifact[]>([])
  const artifactsError = ref<string | null>(null)
  /** The build whose log is shown. */
  const shownArtifactId = ref<number | null>(null)
  const building = ref(false)
  const buildError = ref<string | null>(null)
  const lastBuildHit = ref<boolean | null>(null)
  const render = ref<PipelineRender | null>(null)
  const renderError = ref<string | null>(null)
  const renderTarget = ref<P4Target>('bmv2')
  const selectedSwitch = ref<string | null>(null)
  const reveal = ref<Reveal | null>(null)
  const actionError = ref<string | null>(null)

  // Choosing an experiment (or New, or Home) in the sidebar leaves this view.
  watch(
    () => experiments.view,
    () => {
      active.value = false
    },
  )

  const selectedProgram = computed(
    () => programs.value.find((p) => selected.value && p.scheme === selected.value.scheme && p.target === selected.value.target) ?? null,
  )
  const programArtifacts = computed(() => (source.value ? artifacts.value.filter((a) => a.program === source.value!.program) : []))
  const shownArtifact = computed(
    () => artifacts.value.find((a) => a.id === shownArtifactId.value) ?? programArtifacts.value[0] ?? null,
  )

  async function open(): Promise<void> {
    active.value = true
    if (experimentId.value === null && experiments.selectedId !== null) experimentId.value = experiments.selectedId
    await Promise.all([loadPrograms(), loadArtifacts()])
    if (!selected.value && programs.value.length > 0) {
      const hula = programs.value.find((p) => p.scheme === 'hula' && p.target === 'bmv2') ?? programs.value[0]
      await select(hula.scheme, hula.target)
    }
  }

  async function loadPrograms(): Promise<void> {
    try {
      programs.value = await call('pipelines.list', {})
      programsError.value = null
    } catch (err) {
      programsError.value = errorMessage(err)
    }
  }

  async function loadArtifacts(): Promise<void> {
    try {
      artifacts.value = await call('pipelines.artifacts', {})
      artifactsError.value = null
    } catch (err) {
      artifactsError.value = errorMessage(err)
    }
  }

  async function loadSource(): Promise<void> {
    const sel = selected.value
    if (!sel) return
    try {
      const s = await call('pipelines.source', { ...sel, ...(experimentId.value !== null ? { experimentId: experimentId.value } : {}) })
      if (selected.value === sel) {
        source.value = s
        sourceError.value = null
      }
    } catch (err) {
      if (selected.value === sel) {
        source.value = null
        sourceError.value = errorMessage(err)
      }
    }
  }

  async function loadRender(): Promise<void> {
    const sel = selected.value
    const exp = experimentId.value
    if (!sel || exp === null) {
      render.value = null
      renderError.value = null
      return
    }
    const target = renderTarget.value
    try {
      const r = await call('pipelines.render', { scheme: sel.scheme, target, experimentId: exp })
      if (selected.value !== sel || experimentId.value !== exp || renderTarget.value !== target) return
      render.value = r
      renderError.value = null
      if (!r.switches.some((s) => s.name === selectedSwitch.value)) selectedSwitch.value = r.switches[0]?.name ?? null
    } catch (err) {
      if (selected.value !== sel || experimentId.value !== exp) return
      render.value = null
      renderError.value = errorMessage(err)
    }
  }

  async function select(scheme: string, target: P4Target): Promise<void> {
    selected.value = { scheme, target }
    source.value = null
    shownArtifactId.value = null
    buildError.value = null
    lastBuildHit.value = null
    actionError.value = null
    reveal.value = null
    renderTarget.value = target
    await Promise.all([loadSource(), loadRender()])
  }

  async function setExperiment(id: number | null): Promise<void> {
    experimentId.value = id
    await Promise.all([loadSource(), loadRender()])
  }

  async function setRenderTarget(t: P4Target): Promise<void> {
    renderTarget.value = t
    await loadRender()
  }

  async function copyToVariant(): Promise<void> {
    const sel = selected.value
    if (!sel || experimentId.value === null) return
    actionError.value = null
    try {
      source.value = await call('pipelines.variant', { ...sel, experimentId: experimentId.value })
    } catch (err) {
      actionError.value = errorMessage(err)
    }
  }

  async function saveVariant(path: string, text: string): Promise<boolean> {
    const sel = selected.value
    if (!sel || experimentId.value === null) return false
    actionError.value = null
    try {
      source.value = await call('pipelines.saveVariant', { ...sel, experimentId: experimentId.value, path, text })
      return true
    } catch (err) {
      actionError.value = errorMessage(err)
      return false
    }
  }

  async function build(): Promise<void> {
    const sel = selected.value
    if (!sel) return
    building.value = true
    buildError.value = null
    lastBuildHit.value = null
    try {
      const r = await call('pipelines.build', { ...sel, ...(experimentId.value !== null ? { experimentId: experimentId.value } : {}) })
      lastBuildHit.value = r.hit
      await loadArtifacts()
      shownArtifactId.value = r.artifact.id
    } catch (err) {
      buildError.value = errorMessage(err)
    } finally {
      building.value = false
    }
  }

  let seq = 0
  function revealLine(file: string, line: number): void {
    reveal.value = { file, line, seq: ++seq }
  }

  return {
    active,
    programs,
    programsError,
    selected,
    selectedProgram,
    experimentId,
    source,
    sourceError,
    artifacts,
    artifactsError,
    programArtifacts,
    shownArtifactId,
    shownArtifact,
    building,
    buildError,
    lastBuildHit,
    render,
    renderError,
    renderTarget,
    selectedSwitch,
    reveal,
    actionError,
    open,
    loadArtifacts,
    select,
    setExperiment,
    setRenderTarget,
    copyToVariant,
    saveVariant,
    build,
    revealLine,
  }
})
