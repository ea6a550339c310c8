/**
 * The Content-Security-Policy of the lab. Every response gets the base: no framing (a click on
 * Queue run or Revoke cannot be tricked), no foreign <base> or form targets, no plugins. Pages add
 * `script-src` with a nonce drawn per request: Next.js puts it on its own scripts and the layout on
 * the theme script, so a script that reaches a page any other way (markup that slipped past the
 * escaping, an injected tag) does not run. `'strict-dynamic'` lets the nonced scripts load the
 * page's chunks; development adds `'unsafe-eval'`, which React's dev build needs.
 */
export const BASE_CSP = "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";

export function pageCsp(nonce: string, { dev = false }: { dev?: boolean } = {}): string {
  return `${BASE_CSP}; script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`;
}

/** 128 random bits, base64: a nonce no page can guess. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64");
}
