/**
 * Reconnect delay for the n-th consecutive failure (1-based): 0.5 s doubling to 10 s. `jitter`
 * in [0, 1) spreads the retries of several windows so they do not hit the server in lockstep.
 */
export function backoffDelayMs(attempt: number, jitter = 0): number {
  const base = Math.min(10_000, 500 * 2 ** Math.max(0, attempt - 1))
  return Math.round(base * (1 + 0.2 * jitter))
}
