import { type NextRequest, NextResponse } from "next/server";
import { env } from "@/env";
import { refuseUndecodablePath } from "@/server/api-routes";
import { newNonce, pageCsp } from "@/server/csp";
import { foreignHostResponse } from "@/server/hosts";
import { isApiPath, PAGE_METHODS, pageMethodNotAllowed, refuseApiRequest } from "@/server/refusals";

// Node.js, not the edge runtime: it reads the lab's settings when it starts, not when it is built.
// Not an upload with a body: Next.js copies a body the middleware sees into memory and cuts it at
// 10 MiB, and uploads reach a GiB. The upload route refuses a foreign host itself.
export const config = {
  runtime: "nodejs",
  matcher: [
    "/((?!api/v1/uploads).*)",
    {
      source: "/api/v1/uploads",
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
  ],
};

/**
 * A page's scripts run only with the nonce drawn here: Next.js reads it from the request's
 * Content-Security-Policy and puts it on its own scripts, the layout reads `x-nonce`, and the
 * browser gets the same policy. The API and static files keep the base policy of next.config.ts.
 */
function withPageCsp(request: NextRequest): NextResponse {
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
 * Every answer under /api is a problem when no route serves the request: a path Next.js cannot
 * decode (its HTML 400 page otherwise), one no route has (404, whatever the method: Next.js would
 * answer an empty 400 to a method the catch-all route lacks), a method the route does not serve
 * (405 with `Allow`, which Next.js leaves out). Pages answer GET and HEAD, any other method a 405 page.
 */
function routeRefusal(request: NextRequest): Response | null {
  const { pathname } = request.nextUrl;
  if (isApiPath(pathname)) return refuseUndecodablePath(request) ?? refuseApiRequest(request);
  if (pathname.startsWith("/_next/") || PAGE_METHODS.includes(request.method)) return null;
  return pageMethodNotAllowed(request.method);
}

/**
 * With PERFLAB_ALLOWED_HOSTS set, a request for any other host is refused before it reaches a page
 * or the API: a page that rebinds its own name to 127.0.0.1 reaches the lab under that name and is
 * turned away. What Next.js cannot even hand to this function (TRACE, dot segments) is answered
 * by src/server/http-gate.ts.
 */
export function middleware(request: NextRequest) {
  const foreign = foreignHostResponse(request.headers, env.PERFLAB_ALLOWED_HOSTS);
  if (foreign) return foreign;
  const refusal = routeRefusal(request);
  if (refusal) return refusal;
  const { pathname } = request.nextUrl;
  if (isApiPath(pathname) || pathname.startsWith("/_next/")) return NextResponse.next();
  return withPageCsp(request);
}
