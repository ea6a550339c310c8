import { BASE_CSP } from "./csp";

/**
 * On every response. Permalinks are capabilities (whoever has the slug reads the report), so no page
 * tells another site where it was (Referrer-Policy); no site frames the dashboard to trick a click
 * on Queue run or Revoke (frame-ancestors, X-Frame-Options for older browsers); no response is
 * sniffed into another type; plugins and foreign <base> or form targets are off. Pages get the
 * same policy with a nonce'd script-src from the middleware (src/server/csp.ts).
 */
export const SECURITY_HEADERS = [
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Content-Security-Policy", value: BASE_CSP },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
];
