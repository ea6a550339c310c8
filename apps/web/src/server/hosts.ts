/** The host name of a Host header: lower-case, without its port; IPv6 keeps its brackets. */
export function hostNameOf(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1);
  return value.split(":")[0] ?? "";
}

/**
 * The header and host name a request names that the lab does not answer to, or null. Host must be
 * allowed; so must a proxy's X-Forwarded-Host when sent (a rebinding page can set that header, so
 * it cannot stand in for Host).
 */
export function refusedHost(
  headers: Headers,
  allowed: readonly string[],
): { field: "host" | "x-forwarded-host"; name: string } | null {
  for (const field of ["host", "x-forwarded-host"] as const) {
    const value = headers.get(field);
    if (value === null && field === "x-forwarded-host") continue;
    for (const name of (value ?? "").split(",").map(hostNameOf)) {
      if (!allowed.includes(name)) return { field, name };
    }
  }
  return null;
}

/**
 * The 400 problem for a request naming a host the lab does not answer to (PERFLAB_ALLOWED_HOSTS),
 * or null: answered by the middleware, and by the upload route, which the middleware does not see.
 */
export function foreignHostResponse(
  headers: Headers,
  allowed: readonly string[] | undefined,
): Response | null {
  const refused = allowed?.length ? refusedHost(headers, allowed) : null;
  if (!refused) return null;
  const message = `"${refused.name}" is not a host this lab answers to (PERFLAB_ALLOWED_HOSTS: ${allowed?.join(", ")})`;
  return Response.json(
    {
      type: "urn:perflab:problem:bad-request",
      title: "Bad request",
      status: 400,
      detail: "Refused a request for another host.",
      errors: [{ field: refused.field, message }],
    },
    { status: 400, headers: { "content-type": "application/problem+json" } },
  );
}
