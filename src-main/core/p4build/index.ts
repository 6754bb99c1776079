// The P4 build step (artifact cache, compiler runners), the programs and their variants, and
// the control-plane rendering the CLI and the Pipelines view share. See README.md.
export { P4Builder, BuildFailedError, CompilerMissingError, formatDiagnostic, type ArtifactStore, type BuildRequest, type BuildResult, type P4Target } from './build'
export { artifactKey, canonicalJson, keyMaterial, KEY_VERSION, type BuildOptions, type CompilerId } from './key'
export { LocalRunner, SshRunner, type CompilerRunner, type RunResult, type SshRunnerOptions } from './runner'
export { collectSources, SYSTEM_INCLUDES, type ProgramSources, type SourceFile } from './sources'
export {
  P4_ARCH,
  createVariant,
  declarationsOf,
  listProgramFiles,
  programPath,
  programRelPath,
  readVariant,
  saveVariantFile,
  variantDir,
  type ProgramRef,
  type VariantInfo,
} from './programs'
export { readTopologyYaml, renderPipeline, schemeParams, TopologyInputError, type RenderedPipeline, type RenderedSwitch, type TopologyInput } from './render'
