import { z } from "zod";

/**
 * The plain HTTP routes of servers/CONTRACT.md section 7 the http-route scenario loads: the trivial
 * `/rest/time`, and `/rest/users/{id}`, a primary-key lookup in the fixtures' Postgres.
 */
export const httpRoutes = ["/rest/time", "/rest/users/{id}"] as const;
export type HttpRoute = (typeof httpRoutes)[number];

export const ZHttpRouteParams = z.strictObject({
  route: z.enum(httpRoutes, { error: `must be one of ${httpRoutes.map((r) => `"${r}"`).join(", ")}` }),
});

/** Routes that read the fixtures: the worker starts and resets them before such a cell. */
export const fixtureRoutes: ReadonlySet<HttpRoute> = new Set<HttpRoute>(["/rest/users/{id}"]);
