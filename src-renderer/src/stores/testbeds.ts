import { defineStore } from 'pinia'
import type { HostCheck, Testbed, TestbedCheck, TestbedInput } from '@contract/index'
import { call } from '../client'
import { useSavedList, type PendingHostKey } from './savedList'

export type { PendingHostKey } from './savedList'

function pendingFor(testbed: string, h: HostCheck): PendingHostKey | null {
  if (h.status !== 'unknown-key' || !h.hostKey) return null
  const addr = h.address.includes(':') ? `[${h.address}]` : h.address
  return { testbed, host: h.host, login: `${h.user}@${addr}${h.port === 22 ? '' : `:${h.port}`}`, keyType: h.hostKey.keyType, fingerprint: h.hostKey.fingerprint }
}

/** Testbeds: the list, the one shown, its last Check, and the host-key dialog. */
export const useTestbedsStore = defineStore('testbeds', () => {
  const s = useSavedList<Testbed, TestbedCheck>({
    list: () => call('testbeds.list', {}),
    remove: (name) => call('testbeds.delete', { name }),
    check: (name) => call('testbeds.check', { name }),
    // The first host with an unknown key opens the dialog.
    unknownKey: (name, r) => {
      const h = r.hosts.find((x) => x.status === 'unknown-key')
      return h ? pendingFor(name, h) : null
    },
    trust: (p) => call('testbeds.trust', { testbed: p.testbed, host: p.host, fingerprint: p.fingerprint }),
    firstShown: (list) => list.find((t) => !t.builtin)?.name ?? list[0]?.name ?? null,
  })

  function startNew(): void {
    s.mode.value = 'new'
  }

  function startEdit(): void {
    if (s.current.value && !s.current.value.builtin) s.mode.value = 'edit'
  }

  function cancelForm(): void {
    s.mode.value = 'view'
  }

  /** Creates or updates; errors are thrown for the form to show. */
  async function save(input: TestbedInput): Promise<Testbed> {
    const replacing = s.mode.value === 'edit' && s.selected.value ? s.selected.value : undefined
    const t = replacing ? await call('testbeds.update', { name: replacing, testbed: input }) : await call('testbeds.create', { testbed: input })
    await s.saved(t.name, replacing)
    return t
  }

  /** The dialog for one host of a check (its Trust button). */
  function askAbout(testbed: string, h: HostCheck): void {
    s.ask(pendingFor(testbed, h))
  }

  return { ...s, startNew, startEdit, cancelForm, save, askAbout }
})
