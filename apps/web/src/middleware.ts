import { type NextRequest, NextResponse } from "next/server";
import { env } from "@/env";
import { refuseMethod, refuseUndecodablePath } from "@/server/api-routes";
import { newNonce, pageCsp } from "@/server/csp";
import { refusedHost } from "@/server/hosts";

// Node.js, not the edge runtime: it reads the lab's settings when it starts, not when it is built.
export const config = { runtime: "nodejs" };

/**
 * A page's scripts run only with the nonce drawn here: Next.js reads it from the request's
 * Content-Security-Policy and puts it on its own scripts, the layout reads `x-nonce`, and the
 * browser gets the same policy. The API and static files keep the base policy of next.config.ts.
 */
function withPageCsp(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  if (pathname.startsWith("/api/") || pathname.startsWith("/_next/")) return NextResponse.next();
  const nonce = newNonce();
  const csp = pageCsp(nonce, { dev: process.env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

/**
 * With PERFLAB_ALLOWED_HOSTS set, a request for any other host is refused before it reaches a page
 * or the API: a page that rebinds its own name to 127.0.0.1 reaches the lab under that name and is
 * turned away. A request of an API route by a method the route does not serve gets a 405 problem
 * with an `Allow` header here, since Next.js answers one without either.
 */
export function middleware(request: NextRequest) {
  const allowed = env.PERFLAB_ALLOWED_HOSTS;
  const refused = allowed?.length ? refusedHost(request.headers, allowed) : null;
  if (!refused) {
    // An API route asked for a method it does not serve: a problem naming the ones it does.
    if (request.nextUrl.pathname.startsWith("/api/")) {
      const undecodable = refuseUndecodablePath(request);
      if (undecodable) return undecodable;
      const wrongMethod = refuseMethod(request);
      if (wrongMethod) return wrongMethod;
    }
    return withPageCsp(request);
  }
  const message = `"${refused.name}" is not a host this lab answers to (PERFLAB_ALLOWED_HOSTS: ${allowed?.join(", ")})`;
  return NextResponse.json(
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
