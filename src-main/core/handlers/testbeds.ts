// The contract's testbeds.* methods, over the TestbedService.
import type { Handlers } from '../../contract'
import type { TestbedService } from '../testbeds'

type TestbedHandlers = Pick<
  Handlers,
  'testbeds.list' | 'testbeds.get' | 'testbeds.create' | 'testbeds.update' | 'testbeds.delete' | 'testbeds.check' | 'testbeds.trust'
>

export function testbedHandlers(testbeds: TestbedService): TestbedHandlers {
  return {
    'testbeds.list': async () => testbeds.list(),
    'testbeds.get': async ({ name }) => testbeds.get(name),
    'testbeds.create': async ({ testbed }) => testbeds.create(testbed),
    'testbeds.update': async ({ name, testbed }) => testbeds.update(name, testbed),
    'testbeds.delete': async ({ name }) => ({ deleted: await testbeds.delete(name) }),
    'testbeds.check': async ({ name, host }) => testbeds.check(name, host ? { host } : {}),
    'testbeds.trust': async ({ testbed, host, fingerprint }) => testbeds.trust(testbed, host, fingerprint),
  }
}
