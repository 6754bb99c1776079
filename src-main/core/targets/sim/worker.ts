// Runs one simulation off the main thread, so the UI bridge and the store stay responsive.
import { getHeapStatistics } from 'node:v8'
import { parentPort } from 'node:worker_threads'
import { runSim } from '../../../schemes'
import { TELEMETRY_IN_FLIGHT, type FromWorker, type ToWorker } from './protocol'

const port = parentPort
if (!port) throw new Error('sim-worker must run in a worker thread')

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer)
}

class MemoryCeilingError extends Error {
  constructor(
    readonly usedMb: number,
    readonly ceilingMb: number,
  ) {
    super(`memory ceiling: ${usedMb} MB in use, the ceiling per run is ${ceilingMb} MB`)
  }
}

/**
 * The memory ceiling per run, checked once the run is set up and at every telemetry batch and
 * progress tick: the heap (which resourceLimits also caps) plus the typed arrays that hold
 * flows and packets, which V8 counts as external memory and resourceLimits does not.
 */
function checkMemory(ceilingMb: number | undefined): void {
  if (ceilingMb === undefined) return
  const s = getHeapStatistics()
  const usedMb = Math.round((s.used_heap_size + s.external_memory) / 2 ** 20)
  if (usedMb > ceilingMb) throw new MemoryCeilingError(usedMb, ceilingMb)
}

port.once('message', (msg: ToWorker) => {
  if (msg.type !== 'start') return
  const t0 = performance.now()
  const credits = msg.credits ? new Int32Array(msg.credits) : null
  try {
    const result = runSim(msg.config, {
      onSeries: (defs) => {
        checkMemory(msg.memoryMb)
        post({ type: 'series', defs })
      },
      onTelemetry: (t, values) => {
        checkMemory(msg.memoryMb)
        if (credits) {
          // Back-pressure: wait (in short slices, so terminate() still ends the thread) while
          // the main thread has TELEMETRY_IN_FLIGHT batches it has not consumed.
          for (let n = Atomics.load(credits, 0); n >= TELEMETRY_IN_FLIGHT; n = Atomics.load(credits, 0)) Atomics.wait(credits, 0, n, 100)
          Atomics.add(credits, 0, 1)
        }
        post({ type: 'telemetry', t, values }, [t.buffer as ArrayBuffer, values.buffer as ArrayBuffer])
      },
      onProgress: (p) => {
        checkMemory(msg.memoryMb)
        post({ type: 'progress', ...p })
      },
      onFlows: (batch) =>
        post({ type: 'flows', batch }, [batch.id.buffer, batch.src.buffer, batch.dst.buffer, batch.sizeBytes.buffer, batch.startNs.buffer, batch.finishNs.buffer] as ArrayBuffer[]),
    })
    const f = result.flows
    post({ type: 'done', result, wallMs: performance.now() - t0 }, [
      f.src.buffer,
      f.dst.buffer,
      f.sizeBytes.buffer,
      f.startNs.buffer,
      f.finishNs.buffer,
    ] as ArrayBuffer[])
  } catch (err) {
    if (err instanceof MemoryCeilingError) {
      post({ type: 'error', message: err.message, memory: { usedMb: err.usedMb, ceilingMb: err.ceilingMb } })
      return
    }
    const e = err instanceof Error ? err : new Error(String(err))
    post({ type: 'error', message: e.message, stack: e.stack })
  }
})
