import { defineScenario } from "../../scenario-module.ts";
import { fixtureRoutes, type HttpRoute, httpRoutes, ZHttpRouteParams } from "./params.ts";
import { httpRouteEnv } from "./run.ts";

export * from "./params.ts";
export * from "./run.ts";

/** What each route measures, under the run form's select. */
const routeHints: Record<HttpRoute, string> = {
  "/rest/time": "The trivial route: the server's clock as JSON, no I/O",
  "/rest/users/{id}": "A Postgres primary-key lookup (the fixtures start first), ids 1–100000 in turn",
};

/** Plain HTTP GETs of one REST route of the servers, no MCP (k6/http-route.js). */
export const httpRoute = defineScenario({
  id: "http-route",
  title: "HTTP route (not MCP)",
  description:
    "Plain HTTP GET of one of the servers' REST routes, no MCP: /rest/time (the trivial route) or /rest/users/{id} (a Postgres primary-key lookup in the fixtures, ids 1–100000 in turn).",
  script: "http-route.js",
  params: ZHttpRouteParams,
  defaultParams: { route: "/rest/time" },
  operationMethod: "GET",
  protocol: "http",
  operations: { name: "HTTP requests", word: "request", tag: "the route" },
  env: ({ route }, { mcpPath: _mcpPath, ...load }) => httpRouteEnv({ ...load, route }),
  needsFixtures: ({ route }) => fixtureRoutes.has(route),
  uploadParams: (call) => (call.tool ? { route: call.tool } : {}),
  form: [
    {
      kind: "select",
      name: "route",
      label: "Route",
      options: httpRoutes.map((route) => ({ value: route, label: `GET ${route}`, hint: routeHints[route] })),
      default: httpRoutes[0],
    },
  ],
  cli: [
    {
      flag: "route",
      param: "route",
      value: "text",
      upload: "tool",
      picksScenario: true,
      help: {
        run: {
          synopsis: "--route <path>",
          text: "the route of a route scenario (http-route unless --scenario says)",
        },
        upload: { synopsis: "--route <path>", text: "an http-route.js upload instead of a tool" },
      },
    },
  ],
});
