import type { EventName, EventPayload } from '../contract'

type Listener = (event: EventName, payload: unknown) => void

/** Fan-out of contract events from the core to every binding (IPC window, WS clients, CLI). */
export class EventBus {
  private listeners = new Set<Listener>()

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) l(event, payload)
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
