// Work on every host of a fabric at once, with progress per host: each host's steps go into the
// run's log (under the host's name) and out as 'host.progress' events (HostProgress in the
// contract), which the run view shows as a line per host. A host that fails stops the others at
// their next step (they are not left deploying into a run that is over) and the error names it.
import type { HostProgress } from '../../../contract/testbed-mapping'
import { CancelledError, type RunTestbedHost } from '../driver'
import { teardownHost, type RemoteRun } from '../shared/remote'

export type HostPhase = HostProgress['phase']

export function hostProgress(run: RemoteRun, p: HostProgress): void {
  run.ctx.event?.('host.progress', p)
  run.ctx.log(p.host, `${p.phase}: ${p.step} ${p.state}${p.error ? `: ${p.error}` : ''}`)
}

/** One host's steps in a phase: `step(name, body)` reports it started, done or failed. */
export type HostStep = <T>(name: string, body: () => Promise<T>) => Promise<T>

/** A host that stopped because another one failed: not a failure of its own. */
class StoppedByOther extends Error {}

/** `host: message`, without saying the host twice (remote commands' errors already start with it). */
export function onHost(host: string, message: string): string {
  return message.startsWith(`${host}: `) ? message : `${host}: ${message}`
}

/**
 * Runs `fn` for every host at once (Promise.all over the hosts' own SSH sessions). Resolves with
 * each host's result; when any host fails, waits for the others to settle and throws, naming
 * every host that failed and what it was doing.
 */
export async function onEveryHost<T>(
  run: RemoteRun,
  phase: HostPhase,
  hosts: readonly RunTestbedHost[],
  fn: (h: RunTestbedHost, step: HostStep) => Promise<T>,
): Promise<T[]> {
  let failed: string | null = null
  const results = await Promise.allSettled(
    hosts.map((h) => {
      const step: HostStep = async (name, body) => {
        if (failed !== null) throw new StoppedByOther(`stopped before ${name}: ${failed} failed`)
        run.throwIfCancelled()
        hostProgress(run, { host: h.name, phase, step: name, state: 'started' })
        try {
          const r = await body()
          hostProgress(run, { host: h.name, phase, step: name, state: 'done' })
          return r
        } catch (e) {
          const cancelled = e instanceof CancelledError || run.ctx.signal.aborted
          if (!cancelled) failed ??= h.name
          hostProgress(run, { host: h.name, phase, step: name, state: 'failed', error: cancelled ? 'cancelled' : (e as Error).message })
          throw e
        }
      }
      return fn(h, step)
    }),
  )
  if (results.every((r) => r.status === 'fulfilled')) return results.map((r) => (r as PromiseFulfilledResult<T>).value)
  const errors = results.flatMap((r, i) => (r.status === 'rejected' && !(r.reason instanceof StoppedByOther) ? [{ host: hosts[i].name, e: r.reason as Error }] : []))
  if (errors.every((x) => x.e instanceof CancelledError) || run.ctx.signal.aborted) throw new CancelledError()
  const real = errors.filter((x) => !(x.e instanceof CancelledError))
  const others = hosts.filter((h) => !real.some((x) => x.host === h.name)).map((h) => h.name)
  throw new Error(
    `${phase} failed on ${real.map((x) => x.host).join(' and ')}: ${real.map((x) => onHost(x.host, x.e.message)).join('; ')}` +
      (others.length ? ` (${others.join(', ')} stopped there; the run's teardown removes what every host has)` : ''),
  )
}

/**
 * Teardown of every host the run touched, at once (a host that does not answer does not hold up
 * the others), each a 'teardown' step in its progress; then the run's connections close. Throws
 * naming every host that could not be cleaned and what it left (teardownHost has recorded it
 * for the next run's cleanup).
 */
export async function teardownEveryHost(run: RemoteRun, hosts: readonly RunTestbedHost[], prefixOf: (h: RunTestbedHost) => string | null, opts: { keepRunDir?: boolean } = {}): Promise<void> {
  let problems: string[]
  try {
    const touched = hosts.filter((h) => run.touched.has(h.id))
    problems = await Promise.all(
      touched.map(async (h) => {
        hostProgress(run, { host: h.name, phase: 'teardown', step: 'clean', state: 'started' })
        const p = await teardownHost(run, h, prefixOf(h), opts).catch((e: Error) => onHost(h.name, e.message))
        hostProgress(run, { host: h.name, phase: 'teardown', step: 'clean', state: p ? 'failed' : 'done', ...(p ? { error: p } : {}) })
        return p
      }),
    ).then((r) => r.filter((x): x is string => x !== null))
  } finally {
    run.close()
  }
  if (problems.length) throw new Error(`teardown left things behind: ${problems.join(' | ')}`)
}
