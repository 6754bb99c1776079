// An archive holds no secret: a password and a key passphrase planted in the SecretStore of
// a testbed the runs used are searched for in every byte of the archive, compressed and not.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { FileSecretStore, defaultSecretsPath } from '../../src-main/core/secrets'
import { parseExperiment } from '../../src-main/core/spec'
import { workloadsDir } from '../../src-main/core/paths'
import { openStore } from '../../src-main/core/store'
import { passphraseSecretId } from '../../src-main/core/testbeds'
import { p4lab } from '../helpers/cli'

const PASSPHRASE = 'correct-horse-battery-staple-7f3a'
const PASSWORD = 'Tr0ub4dor&3-s3cret-pw'
const KEY = 'a'.repeat(64)

const YAML = `name: lab-secrets
testbed: lab
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 4 }
seeds: [1, 2]
`

function forms(secret: string): Buffer[] {
  return [Buffer.from(secret, 'utf8'), Buffer.from(secret, 'utf16le'), Buffer.from(Buffer.from(secret).toString('base64')), Buffer.from(Buffer.from(secret).toString('hex'))]
}

describe('p4lab export: no secret in the archive', () => {
  it('leaves out the password and key passphrase of the testbed the runs used', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-secrets-'))
    const home = join(dir, 'home')
    const db = join(home, 'p4lab.db')
    const store = openStore(db)
    const tb = store.createTestbed({
      name: 'lab',
      kind: 'bmv2',
      settings: { bringUp: 'netns', rateCeilingBps: 1e9 },
      hosts: [{ name: 'sw1', address: '10.0.0.1', port: 22, user: 'p4', auth: 'key', keyFile: '/home/alice/.ssh/lab_ed25519', role: 'switch-host' }],
    })
    const secrets = new FileSecretStore(defaultSecretsPath(home))
    await secrets.set(passphraseSecretId(tb.hosts[0].id), PASSPHRASE)
    await secrets.set(`ssh:password:host-${tb.hosts[0].id}`, PASSWORD)
    expect(readFileSync(defaultSecretsPath(home), 'utf8')).toContain(PASSPHRASE)

    // Two finished BMv2 runs, as the driver records them: the artifact they built, the program, tool versions.
    // The program as a run recorded it before p4/ had a folder per program (now ecmp/v1model/ecmp.p4).
    const parsed = parseExperiment(YAML, { file: 'lab.yaml', baseDir: dir, workloadsDir: workloadsDir(), testbeds: ['sim', 'lab'] })
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
    const exp = store.createExperiment({ name: 'lab-secrets', yaml: YAML, spec: parsed.spec, file: null, tags: [] })
    mkdirSync(join(home, 'artifacts', KEY), { recursive: true })
    writeFileSync(join(home, 'artifacts', KEY, 'ecmp.json'), '{"program": "ecmp"}\n')
    store.putArtifact({
      hash: KEY, target: 'bmv2', program: 'v1model/ecmp.p4', compiler: 'p4c-bm2-ss 1.2.4', options: {},
      outputs: { status: 'ok', exitCode: 0, files: { json: 'ecmp.json' }, diagnostics: [], sources: [], main: 'v1model/ecmp.p4', where: 'local', argv: [], durationMs: 1 },
      log: '',
    })
    for (const run of store.createRuns(exp.id, 'lab', 'elsewhere:1', [1, 2].map((seed) => ({ scheme: 'ecmp', load: 0.3, seed, params: {} })))) {
      for (const s of ['deploying', 'running', 'collecting'] as const) store.setRunStatus(run.id, s)
      store.insertFlows(run.id, { src: [0, 1], dst: [2, 3], sizeBytes: [1000, 2000], startNs: [0, 10], finishNs: [5000, 9000] })
      store.setRunResults(run.id, {
        stats: { flows: 2, finished: 2, meanNs: 7000, p50Ns: 5000, p99Ns: 8990, smallMeanNs: 7000, largeMeanNs: null },
        counters: { drops: 0 },
        facts: { target: 'bmv2', artifact: KEY, program: 'v1model/ecmp.p4', compiler: 'p4c-bm2-ss 1.2.4', 'sw1.p4c': '1.2.4' },
      })
      store.addLog(run.id, 'orchestrator', 'step deploy: done')
      store.setRunStatus(run.id, 'done')
    }
    store.close()

    const out = join(dir, 'lab.tar.gz')
    const r = p4lab(['export', 'lab-secrets', '--db', db, '-o', out], dir, { home })
    expect(r.code, r.stderr).toBe(0)

    const gz = readFileSync(out)
    const tar = gunzipSync(gz)
    for (const secret of [PASSPHRASE, PASSWORD]) {
      for (const form of forms(secret)) {
        expect(gz.includes(form), `${secret} in the compressed archive`).toBe(false)
        expect(tar.includes(form), `${secret} in the archive's bytes`).toBe(false)
      }
    }
    // What the archive does say about the testbed and the P4 the runs used.
    const text = tar.toString('latin1')
    for (const name of ['testbed/lab.json', 'p4/ecmp/v1model/ecmp.p4', 'p4/include/headers.p4', `artifacts/${KEY}/ecmp.json`, 'controlplane/bmv2-ecmp/', 'logs/run-1.log']) expect(text, name).toContain(name)
    const testbed = JSON.parse(text.slice(text.indexOf('{\n  "name": "lab"'), text.indexOf('\n}\n', text.indexOf('{\n  "name": "lab"')) + 2))
    expect(testbed.hosts[0]).toEqual({ name: 'sw1', address: '10.0.0.1', port: 22, user: 'p4', auth: 'key', role: 'switch-host', hostKey: null })
    expect(text).not.toContain('/home/alice/.ssh/lab_ed25519')
    expect(text).not.toContain('ssh:key-passphrase')
    const manifest = JSON.parse(text.slice(text.indexOf('{\n  "format"'), text.indexOf('\n}\n', text.indexOf('{\n  "format"')) + 2))
    expect(manifest.targets.lab).toMatchObject({ artifact: KEY, compiler: 'p4c-bm2-ss 1.2.4', 'sw1.p4c': '1.2.4' })
  })
})
