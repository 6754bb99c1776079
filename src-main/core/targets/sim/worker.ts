// Runs one simulation off the main thread, so the UI bridge and the store stay responsive.
import { parentPort } from 'node:worker_threads'
import { runSim } from '../../../sim'
import type { FromWorker, ToWorker } from './protocol'

const port = parentPort
if (!port) throw new Error('sim-worker must run in a worker thread')

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer)
}

port.once('message', (msg: ToWorker) => {
  if (msg.type !== 'start') return
  const t0 = performance.now()
  try {
    const result = runSim(msg.config, {
      onSeries: (defs) => post({ type: 'series', defs }),
      onTelemetry: (t, values) =>
        post({ type: 'telemetry', t, values }, [t.buffer as ArrayBuffer, values.buffer as ArrayBuffer]),
      onProgress: (p) => post({ type: 'progress', ...p }),
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
    const e = err instanceof Error ? err : new Error(String(err))
    post({ type: 'error', message: e.message, stack: e.stack })
  }
})
