// Link names: the canonical `upper-lower` (spine1-agg3), and `upper-lower/2`, `/3`, ... for
// the second and later parallel links between the same two nodes, in link order. Node
// names never hold '-', ':' or '/', so a name reads back unambiguously in either order.

/** The same link written lower node first (or back): "agg3-spine1/2" for "spine1-agg3/2". */
export function reverseLinkName(name: string): string {
  const slash = name.indexOf('/')
  const base = slash < 0 ? name : name.slice(0, slash)
  const suffix = slash < 0 ? '' : name.slice(slash)
  return base.split('-').reverse().join('-') + suffix
}

/** The name of the `nth` (1-based) link between upper node `a` and lower node `b`. */
export function linkName(a: string, b: string, nth: number): string {
  return nth <= 1 ? `${a}-${b}` : `${a}-${b}/${nth}`
}

/** What a node name may hold: it is written in link names and `node:port` ends. */
export const NODE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.]*$/
