import type { SchemeParams } from '../../model/controlplane/types'
import { PARAM_DEFAULTS } from '../../schemes'

/** Every scheme's parameter defaults (declared in each scheme's params.ts), and the fabric's. */
export const DEFAULT_PARAMS: SchemeParams = { ...PARAM_DEFAULTS, queuePackets: 100, packetBytes: 1500 }
