// Query, group and compare runs (issue 7, items 2 and 3): the core the runs table, the
// compare view and `p4lab compare` share.
export { band, tCritical95, type Band, type BandKind } from './band'
export { CompareError, compareRuns, type CompareOptions, type CompareResult, type CompareRow } from './compare'
export { formatCompareCdfs, formatCompareJson, formatCompareTable, formatValue } from './format'
export { configHash, programHash, sha256Hex, topologyHash } from './hashes'
export { CDF_PROBABILITIES, METRICS, cdfPoints, fctCdf, isMetric, metricFromFlows, type MetricName } from './metrics'
export { QueryError, checkFields, matches, parseQuery, unmatchedHints, type QueryNode, type Queryable } from './query'
export { RunRecord, diffOnly, knownFields, loadRecords, type FieldValue } from './records'
export { searchRuns, type SearchHit } from './search'
