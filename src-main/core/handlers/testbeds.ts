// The contract's testbeds.* methods, over the TestbedService.
import type { Handlers } from '../../contract'
import type { TestbedService } from '../testbeds'
import { CoreError } from '../errors'
import type { FabricSpec } from '../../model/topology'

type TestbedHandlers = Pick<
  Handlers,
  | 'testbeds.list'
  | 'testbeds.get'
  | 'testbeds.create'
  | 'testbeds.update'
  | 'testbeds.delete'
  | 'testbeds.check'
  | 'testbeds.trust'
  | 'testbeds.setMapping'
  | 'testbeds.previewMapping'
  | 'testbeds.pickKeyFile'
>

export interface TestbedHandlerDeps {
  /** An experiment's fabric, by id (throws not-found / invalid-spec). */
  topologyOf(experimentId: number): FabricSpec
  /** The desktop app's file dialog; absent in web mode (the path is typed, and checked on save). */
  pickKeyFile?: () => Promise<string | null>
}

export function testbedHandlers(testbeds: TestbedService, deps: TestbedHandlerDeps): TestbedHandlers {
  return {
    'testbeds.list': async () => testbeds.list(),
    'testbeds.get': async ({ name }) => testbeds.get(name),
    'testbeds.create': async ({ testbed }) => testbeds.create(testbed),
    'testbeds.update': async ({ name, testbed }) => testbeds.update(name, testbed),
    'testbeds.delete': async ({ name }) => ({ deleted: await testbeds.delete(name) }),
    'testbeds.check': async ({ name, host }) => testbeds.check(name, host ? { host } : {}),
    'testbeds.trust': async ({ testbed, host, fingerprint }) => testbeds.trust(testbed, host, fingerprint),
    'testbeds.setMapping': async ({ name, mapping, yaml }) => testbeds.setMapping(name, { ...(mapping !== undefined ? { mapping } : {}), ...(yaml !== undefined ? { yaml } : {}) }),
    'testbeds.pickKeyFile': async () => {
      if (!deps.pickKeyFile) {
        throw new CoreError('invalid-request', "the file picker is in the desktop app only; type the key file's path on the server (it is checked when you save)")
      }
      return { path: await deps.pickKeyFile() }
    },
    'testbeds.previewMapping': async ({ name, experimentId, mapping }) => testbeds.previewMapping(name, deps.topologyOf(experimentId), mapping),
  }
}
