import { allowedMethods, refuseMethod } from "./api-routes";
import { BASE_CSP } from "./csp";
import { AppError } from "./errors";
import { problemResponse, requestIdOf } from "./http";

/** The methods a page answers: it has no server actions, so nothing posts to one. */
export const PAGE_METHODS = ["GET", "HEAD"];

export const isApiPath = (pathname: string) => pathname === "/api" || pathname.startsWith("/api/");

/** The request as the refusals below read it: a stand-in for a Request that fetch cannot build (TRACE). */
type RequestLine = Pick<Request, "url" | "method" | "headers">;

/** Every path under /api that no route has, by any method: a problem+json 404, not the HTML page. */
export function apiPathNotFound(request: RequestLine): Response {
  const { pathname } = new URL(request.url);
  const error = new AppError(
    "not_found",
    `No API route has the path ${pathname}; the routes are listed in /api/v1/openapi.json.`,
    [{ field: "(path)", message: "is not the path of an API route" }],
  );
  return problemResponse(error.toProblem(requestIdOf(request as Request)));
}

/**
 * What an API path answers before its route runs: a 404 problem when no route has it, a 405 naming
 * the methods it serves when it has one that does not serve this method; null otherwise.
 */
export function refuseApiRequest(request: RequestLine): Response | null {
  if (allowedMethods(new URL(request.url).pathname) === null) return apiPathNotFound(request);
  return refuseMethod(request as Request);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page asked for by a method pages do not answer: a 405 page naming the ones they do. */
export function pageMethodNotAllowed(method: string): Response {
  const allow = PAGE_METHODS.join(", ");
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Method not allowed · perflab</title></head>
<body><main data-testid="method-not-allowed"><h1>Method not allowed</h1>
<p>Pages answer ${allow}, not ${escapeHtml(method)}.</p>
<p><a href="/">Back to the runs</a></p></main></body></html>
`;
  return new Response(html, {
    status: 405,
    headers: { allow, "content-type": "text/html; charset=utf-8", "content-security-policy": BASE_CSP },
  });
}
