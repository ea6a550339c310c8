const BASE = "http://perflab.invalid";

/**
 * Where to go after signing in: a path of this site only. The value is resolved the way a browser
 * resolves it (which drops tabs and newlines and reads "\" as "/", so "/\t/evil.example" is the
 * host evil.example), and only a result on this same origin is kept, as its path, query and hash.
 */
export function safeNext(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  if (!value?.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return "/";
  }
  if (url.origin !== BASE) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}
