import { fromJson, toJson, type StoreContext } from './rows'
import type { SeenTestbed } from '../../contract/revisions'
import type { TestbedKind } from '../../contract/testbeds'

// Testbeds and their hosts (migration 1's tables). A host's pinned key is kept in the
// known_hosts form `keytype base64`; secrets (passphrases) have no column at all: they
// live in the SecretStore under an id derived from the host's id.

export type TestbedKindRow = TestbedKind

export interface HostRow {
  id: number
  testbedId: number
  name: string
  address: string
  port: number
  user: string
  auth: 'agent' | 'key'
  keyFile: string | null
  /** `keytype base64` of the key pinned through p4lab, or null. */
  hostKey: string | null
  role: string
}

export interface TestbedRow {
  id: number
  name: string
  kind: TestbedKindRow
  settings: Record<string, unknown>
  createdAt: string
  hosts: HostRow[]
  /** Where a fabric goes on it (contract/testbed-mapping.ts), as stored; null: none yet. */
  mapping: unknown
}

/**
 * A testbed as a run saw it and as an archive writes it: what says where and how the run ran,
 * nothing secret or local. Key file paths stay home; passphrases and passwords have no column.
 */
export type TestbedSeen = SeenTestbed

export function describeTestbed(tb: TestbedRow): TestbedSeen {
  return {
    name: tb.name,
    kind: tb.kind,
    settings: tb.settings,
    hosts: tb.hosts.map((h) => ({ name: h.name, address: h.address, port: h.port, user: h.user, auth: h.auth, role: h.role, hostKey: h.hostKey })),
    ...(tb.mapping === null || tb.mapping === undefined ? {} : { mapping: tb.mapping }),
  }
}

/** A host to write: with `id`, that existing host is updated in place. */
export type HostRowInput = Omit<HostRow, 'id' | 'testbedId' | 'hostKey'> & { id?: number }

export interface TestbedRowInput {
  name: string
  kind: TestbedKindRow
  settings: Record<string, unknown>
  hosts: HostRowInput[]
}

interface TestbedRecord {
  id: number
  name: string
  kind: TestbedKindRow
  settings: string
  created_at: string
}

interface HostRecord {
  id: number
  testbed_id: number
  name: string
  address: string
  port: number
  user: string
  auth: 'agent' | 'key'
  key_file: string | null
  host_key: string | null
  role: string
}

function toHost(r: HostRecord): HostRow {
  return {
    id: r.id,
    testbedId: r.testbed_id,
    name: r.name,
    address: r.address,
    port: r.port,
    user: r.user,
    auth: r.auth,
    keyFile: r.key_file,
    hostKey: r.host_key,
    role: r.role,
  }
}

function hostsOf(s: StoreContext, testbedId: number): HostRow[] {
  return (s.stmt('SELECT * FROM hosts WHERE testbed_id = ? ORDER BY id').all(testbedId) as HostRecord[]).map(toHost)
}

function toRow(s: StoreContext, r: TestbedRecord): TestbedRow {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    settings: fromJson<Record<string, unknown>>(r.settings) ?? {},
    createdAt: r.created_at,
    hosts: hostsOf(s, r.id),
    mapping: fromJson<unknown>((s.stmt('SELECT mapping FROM testbed_mappings WHERE testbed_id = ?').get(r.id) as { mapping: string } | undefined)?.mapping ?? null) ?? null,
  }
}

/** By name; the built-in sim testbed included. */
export function listTestbeds(s: StoreContext): TestbedRow[] {
  return (s.stmt('SELECT * FROM testbeds ORDER BY name COLLATE NOCASE, id').all() as TestbedRecord[]).map((r) => toRow(s, r))
}

export function testbedNames(s: StoreContext): string[] {
  return (s.stmt('SELECT name FROM testbeds ORDER BY id').all() as Array<{ name: string }>).map((r) => r.name)
}

export function getTestbed(s: StoreContext, name: string): TestbedRow | undefined {
  const r = s.stmt('SELECT * FROM testbeds WHERE name = ?').get(name) as TestbedRecord | undefined
  return r && toRow(s, r)
}

function insertHost(s: StoreContext, testbedId: number, h: HostRowInput): void {
  s.stmt(
    `INSERT INTO hosts (testbed_id, name, address, port, user, auth, key_file, host_key, role)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
  ).run(testbedId, h.name, h.address, h.port, h.user, h.auth, h.keyFile, h.role)
}

/** Throws on a duplicate name (UNIQUE constraint); the caller checks first for a clear message. */
export function createTestbed(s: StoreContext, input: TestbedRowInput): TestbedRow {
  return s.write(() => {
    const { lastInsertRowid } = s
      .stmt('INSERT INTO testbeds (name, kind, settings, created_at) VALUES (?, ?, ?, ?)')
      .run(input.name, input.kind, toJson(input.settings), s.isoNow())
    const id = Number(lastInsertRowid)
    for (const h of input.hosts) insertHost(s, id, { ...h, id: undefined })
    return toRow(s, s.stmt('SELECT * FROM testbeds WHERE id = ?').get(id) as TestbedRecord)
  })
}

/**
 * Replaces a testbed's fields and hosts in one transaction. Hosts given with the `id` of
 * one of this testbed's hosts are updated in place (keeping their pinned key unless the
 * address, port changed); the others are inserted; hosts not given are deleted.
 * Returns the row and the ids of the deleted hosts (their secrets are the caller's to drop).
 */
export function updateTestbed(s: StoreContext, id: number, input: TestbedRowInput): { row: TestbedRow; removedHostIds: number[] } {
  return s.write(() => {
    const { changes } = s
      .stmt('UPDATE testbeds SET name = ?, kind = ?, settings = ? WHERE id = ?')
      .run(input.name, input.kind, toJson(input.settings), id)
    if (changes === 0) throw new Error(`testbed ${id} does not exist`)
    const existing = new Map(hostsOf(s, id).map((h) => [h.id, h]))
    const kept = new Set(input.hosts.map((h) => h.id).filter((x): x is number => x !== undefined && existing.has(x)))
    const removed = [...existing.keys()].filter((hid) => !kept.has(hid))
    // Delete first, so a new host may take a removed one's name.
    for (const hid of removed) s.stmt('DELETE FROM hosts WHERE id = ?').run(hid)
    // Renames among kept hosts could collide on UNIQUE(testbed_id, name) midway: park them first.
    for (const hid of kept) s.stmt("UPDATE hosts SET name = '~renaming~' || id WHERE id = ?").run(hid)
    for (const h of input.hosts) {
      const old = h.id !== undefined ? existing.get(h.id) : undefined
      if (!old) {
        insertHost(s, id, h)
        continue
      }
      // A pinned key belongs to an address and port; moving the host unpins it.
      const samePlace = old.address.toLowerCase() === h.address.toLowerCase() && old.port === h.port
      s.stmt(
        `UPDATE hosts SET name = ?, address = ?, port = ?, user = ?, auth = ?, key_file = ?, role = ?,
                          host_key = CASE WHEN ? THEN host_key ELSE NULL END
         WHERE id = ?`,
      ).run(h.name, h.address, h.port, h.user, h.auth, h.keyFile, h.role, samePlace ? 1 : 0, old.id)
    }
    return { row: toRow(s, s.stmt('SELECT * FROM testbeds WHERE id = ?').get(id) as TestbedRecord), removedHostIds: removed }
  })
}

/** Returns the ids of the hosts that went with it (their secrets are the caller's to drop). */
export function deleteTestbed(s: StoreContext, id: number): number[] {
  return s.write(() => {
    const hostIds = hostsOf(s, id).map((h) => h.id)
    s.stmt('DELETE FROM hosts WHERE testbed_id = ?').run(id)
    s.stmt('DELETE FROM testbed_mappings WHERE testbed_id = ?').run(id)
    s.stmt('DELETE FROM testbeds WHERE id = ?').run(id)
    return hostIds
  })
}

/** Records the key pinned for a host (`keytype base64`), or clears it with null. */
export function setHostKey(s: StoreContext, hostId: number, hostKey: string | null): void {
  s.stmt('UPDATE hosts SET host_key = ? WHERE id = ?').run(hostKey, hostId)
}

/** Stores a testbed's mapping (already validated), or removes it with null. */
export function setTestbedMapping(s: StoreContext, testbedId: number, mapping: unknown): void {
  s.write(() => {
    if (mapping === null) s.stmt('DELETE FROM testbed_mappings WHERE testbed_id = ?').run(testbedId)
    else {
      s.stmt(
        `INSERT INTO testbed_mappings (testbed_id, mapping, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (testbed_id) DO UPDATE SET mapping = excluded.mapping, updated_at = excluded.updated_at`,
      ).run(testbedId, toJson(mapping), new Date().toISOString())
    }
  })
}
