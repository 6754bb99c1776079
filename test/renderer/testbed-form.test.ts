// The testbed form's logic without the form: addresses typed with a user and a port, the input
// sent to the core, and problems placed at the field they concern.
import { describe, expect, it } from 'vitest'
import { TestbedInput } from '../../src-main/contract'
import { draftOf, fieldErrorsOf, formErrors, FIX_FIELDS, newHost, splitAddress, testbedInput } from '../../src-renderer/src/lib/testbedForm'

const host = (address: string, user = '', port = 22) => ({ address, user, port })

describe('splitAddress', () => {
  it('takes the port from host:port and the user from user@host:port', () => {
    expect(splitAddress(host('127.0.0.1:1'))).toEqual(host('127.0.0.1', '', 1))
    expect(splitAddress(host('root@10.0.0.5:2222'))).toEqual(host('10.0.0.5', 'root', 2222))
    expect(splitAddress(host('p4@switch1', 'old'))).toEqual(host('switch1', 'p4', 22))
    expect(splitAddress(host('[fe80::1]:830'))).toEqual(host('fe80::1', '', 830))
  })

  it('leaves a plain name or a bare IPv6 address as typed, and keeps the other fields', () => {
    expect(splitAddress(host('lab-sw1', 'p4', 2200))).toEqual(host('lab-sw1', 'p4', 2200))
    expect(splitAddress(host('fe80::1'))).toEqual(host('fe80::1'))
    const draft = { ...newHost('bmv2', 0), address: 'me@h:23' }
    expect(splitAddress(draft)).toEqual({ ...draft, address: 'h', user: 'me', port: 23 })
  })
})

describe('testbedInput', () => {
  it('builds what the contract accepts, trimmed, with only its kind’s settings', () => {
    const form = draftOf(null)
    form.name = ' lab1 '
    form.hosts = [{ ...newHost('bmv2', 0), name: 'sw1', address: ' 10.0.0.5 ', user: 'p4', keyFile: '/k' }, { ...newHost('bmv2', 1), address: 'gen', user: 'p4', auth: 'agent' }]
    form.rateScale = '0.5'
    const input = testbedInput(form)
    expect(input).toEqual({
      name: 'lab1',
      kind: 'bmv2',
      settings: { reconnectWindowS: 60, rateCeilingBps: 1e9, rateScale: 0.5, calibrate: true },
      hosts: [
        { name: 'sw1', address: '10.0.0.5', port: 22, user: 'p4', auth: 'key', keyFile: '/k', role: 'switch-host' },
        { name: 'host2', address: 'gen', port: 22, user: 'p4', auth: 'agent', role: 'traffic' },
      ],
    })
    expect(TestbedInput.safeParse(input).success).toBe(true)
    form.kind = 'tofino'
    expect(testbedInput(form).settings).toEqual({ reconnectWindowS: 60, target: 'model' })
  })
})

describe('field errors', () => {
  it("places the contract's issues at their fields", () => {
    const parsed = TestbedInput.safeParse({ name: 'bad name!', kind: 'bmv2', settings: {}, hosts: [{ name: 'h', address: 'a b', port: 70000, user: 'u', auth: 'agent', role: 'switch-host' }] })
    expect(parsed.success).toBe(false)
    const e = formErrors(parsed.error!.issues)
    expect(Object.keys(e.fields).sort()).toEqual(['hosts.0.address', 'hosts.0.port', 'name'])
    expect(e.fields['hosts.0.port']).toBe('a port is 1-65535')
    expect(e.message).toBe(FIX_FIELDS)
  })

  it("places the server's text at its fields, and keeps what names none", () => {
    const e = fieldErrorsOf("invalid testbed: hosts[1] (sw1): key file /x does not exist; a testbed named 'lab1' already exists; settings.rateCeilingBps: too low; the moon is full")
    expect(e.fields).toEqual({ 'hosts.1.keyFile': 'key file /x does not exist', name: "a testbed named 'lab1' already exists", 'settings.rateCeilingBps': 'too low' })
    expect(e.rest).toEqual(['the moon is full'])
    expect(formErrors('hosts[0].address: "x y" is not a host name').fields).toEqual({ 'hosts.0.address': '"x y" is not a host name' })
    expect(formErrors('hosts[0].colour: red').message).toBe('hosts[0].colour: red')
  })
})
