const TOKEN_KEY = 'p4lab.token'

/**
 * The bridge token arrives once, in the URL fragment that `p4lab serve` prints. It is kept in
 * sessionStorage so a reload still works, and taken out of the address bar so it is not
 * copied into screenshots, bookmarks or the history.
 */
export function takeBridgeToken(): string | null {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, '')).get('token')
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash)
    history.replaceState(history.state, '', location.pathname + location.search)
    return fromHash
  }
  return sessionStorage.getItem(TOKEN_KEY)
}

export function forgetBridgeToken(): void {
  sessionStorage.removeItem(TOKEN_KEY)
}
