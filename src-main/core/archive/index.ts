// Result archives (issue 7, item 4): export an experiment as one tar.gz, import one safely.
export { ArchiveRefusedError, badEntryPath } from './entries'
export { ArchiveTargetError, exportExperiment, type ExportOptions, type ExportResult } from './export'
export { DEFAULT_LIMITS, extractSafely, type EntryVetter, type ExtractLimits } from './extract'
export { commitImport, importArchive, prepareImport, type ImportOptions, type ImportResult, type PreparedImport } from './import'
export { ARCHIVE_FORMAT, ARCHIVE_FORMAT_VERSION, MANIFEST, Manifest, parseManifest } from './manifest'
export { ManifestCheck, verifyExtracted } from './verify'
