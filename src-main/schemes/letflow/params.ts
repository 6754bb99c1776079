import type { ParamDecl } from '../../model/scheme'

/**
 * LetFlow's parameters. Its paper evaluates several flowlet timeouts rather than fixing one;
 * the default here is the 100 µs the CONGA and HULA templates use, so a comparison isolates
 * the choice rule. Sweep it (params: { flowletGap: ... }) before drawing conclusions.
 */
export const LETFLOW_PARAMS = {
  flowletGap: { unit: 'duration', default: 100_000, doc: 'flowlet timeout: a flow paused this long starts a new flowlet on a random live path (not fixed by the paper; sweep it)' },
  flowletSlots: { unit: 'count', default: 4096, doc: 'flowlet table entries per switch (flows hash into them); not given by the paper' },
} as const satisfies Record<string, ParamDecl>
