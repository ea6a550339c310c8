import { AppError } from "./errors";
import { problemResponse, requestIdOf } from "./http";
import { getOpenApiDocument } from "./openapi";

type ApiRoute = { pattern: RegExp; methods: string[] };

let routes: ApiRoute[] | undefined;

/**
 * Every API path with the methods it serves, read from the OpenAPI document (which
 * tests/src/openapi.test.ts holds to the route files and their exported methods), plus what
 * Next.js adds to every route: HEAD where there is GET, and OPTIONS.
 */
function apiRoutes(): ApiRoute[] {
  routes ??= Object.entries(getOpenApiDocument().paths ?? {}).map(([template, item]) => {
    const methods = new Set(
      ["get", "head", "post", "put", "patch", "delete"]
        .filter((m) => item && m in item)
        .map((m) => m.toUpperCase()),
    );
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    const segments = template
      .split("/")
      .map((segment) =>
        /^\{\w+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      );
    return { pattern: new RegExp(`^${segments.join("/")}$`), methods: [...methods].sort() };
  });
  return routes;
}

/** The methods an API path serves, sorted; null when no route has this path (it answers 404). */
export function allowedMethods(pathname: string): string[] | null {
  return apiRoutes().find((route) => route.pattern.test(pathname))?.methods ?? null;
}

/**
 * A 405 problem with an `Allow` header for a request whose path is an API route that does not serve
 * its method (Next.js would answer an empty 405 without one); null for anything else.
 */
export function refuseMethod(request: Request): Response | null {
  const { pathname } = new URL(request.url);
  const allowed = allowedMethods(pathname);
  if (!allowed || allowed.includes(request.method)) return null;
  const allow = allowed.join(", ");
  const error = new AppError("method_not_allowed", `${pathname} does not answer ${request.method}.`, [
    { field: "(method)", message: `must be one of ${allow}` },
  ]);
  return problemResponse(error.toProblem(requestIdOf(request)), { allow });
}

/**
 * A path Next.js cannot decode (`%E0`, `%FF`: not UTF-8) would get its HTML 400 page; an API
 * client gets a problem naming the segment instead.
 */
export function refuseUndecodablePath(request: Request): Response | null {
  const { pathname } = new URL(request.url);
  const bad = pathname.split("/").find((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
  if (bad === undefined) return null;
  const error = new AppError("bad_request", `The path ${pathname} is not valid percent-encoded UTF-8.`, [
    { field: "(path)", message: `"${bad}" is not valid percent-encoded UTF-8` },
  ]);
  return problemResponse(error.toProblem(requestIdOf(request)));
}
