// The schemes p4lab knows: one line each. Everything else (the experiment file's scheme names,
// parameter checks, the series vocabulary, the control plane, the simulator's stages, the
// CLI's help, the UI's tables and the tests' lists) derives from this list.
export { conga } from './conga'
export { congaPrime } from './conga-prime'
export { dhlb } from './dhlb'
export { ecmp } from './ecmp'
export { floodgate } from './floodgate'
export { hula } from './hula'
export { letflow } from './letflow'
export { rps } from './rps'
