/**
 * Testbeds (issue 5, item 2): the model, validated with the contract's zod shapes and
 * kept in the store (secrets in the SecretStore only), Check over the SSH layer, and
 * Trust for host keys the user confirmed.
 */
export { TestbedService, formatIssues, passphraseSecretId, type TestbedServiceOptions } from './service'
export { checkHost, type CheckHostInput, type CheckOptions } from './check'
export { describeStoredKey, fetchHostKey, storedKeyText } from './hostkey'
export type { ToolSpec } from './tools'
export * from './versions'
export { storedTestbedNames, withTestbed } from './override'
