/** The dashboard's sign-in: the token itself, in an HttpOnly, SameSite=Strict cookie. */
export const TOKEN_COOKIE = "perflab_token";

/** The sign-in form's address, coming back to `path` (a path of this site, with its query) after. */
export const signInPath = (path: string) => `/sign-in?next=${encodeURIComponent(path)}`;

/** A page's path with its query, as a server component has them: where a sign-in comes back to. */
export function pathWithQuery(
  pathname: string,
  query: Record<string, string | string[] | undefined>,
): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      search.append(name, one);
  }
  const text = search.toString();
  return text ? `${pathname}?${text}` : pathname;
}
