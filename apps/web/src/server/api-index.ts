// Written by apps/web/scripts/api-index.mjs (run by dev, build and typecheck): do not edit.
// A route is a route.ts with a schema.ts beside it that declares each method it exports.
import * as comparison from "../app/api/v1/comparison/schema";
import * as matrices from "../app/api/v1/matrices/schema";
import * as openapiJson from "../app/api/v1/openapi.json/schema";
import * as reportsSlugCellsCsv from "../app/api/v1/reports/[slug]/cells.csv/schema";
import * as reportsSlug from "../app/api/v1/reports/[slug]/schema";
import * as reports from "../app/api/v1/reports/schema";
import * as runsIdCancel from "../app/api/v1/runs/[id]/cancel/schema";
import * as runsIdCellsCsv from "../app/api/v1/runs/[id]/cells.csv/schema";
import * as runsIdComparison from "../app/api/v1/runs/[id]/comparison/schema";
import * as runsIdEvents from "../app/api/v1/runs/[id]/events/schema";
import * as runsId from "../app/api/v1/runs/[id]/schema";
import * as runsIdVerdict from "../app/api/v1/runs/[id]/verdict/schema";
import * as runs from "../app/api/v1/runs/schema";
import * as scriptsId from "../app/api/v1/scripts/[id]/schema";
import * as scripts from "../app/api/v1/scripts/schema";
import * as serversId from "../app/api/v1/servers/[id]/schema";
import * as servers from "../app/api/v1/servers/schema";
import * as session from "../app/api/v1/session/schema";
import * as tokensId from "../app/api/v1/tokens/[id]/schema";
import * as tokens from "../app/api/v1/tokens/schema";
import * as uploads from "../app/api/v1/uploads/schema";
import * as workers from "../app/api/v1/workers/schema";

/** Each route's declarations by OpenAPI path. */
export const apiDeclarations = {
  "/api/v1/comparison": comparison,
  "/api/v1/matrices": matrices,
  "/api/v1/openapi.json": openapiJson,
  "/api/v1/reports": reports,
  "/api/v1/reports/{slug}": reportsSlug,
  "/api/v1/reports/{slug}/cells.csv": reportsSlugCellsCsv,
  "/api/v1/runs": runs,
  "/api/v1/runs/{id}": runsId,
  "/api/v1/runs/{id}/cancel": runsIdCancel,
  "/api/v1/runs/{id}/cells.csv": runsIdCellsCsv,
  "/api/v1/runs/{id}/comparison": runsIdComparison,
  "/api/v1/runs/{id}/events": runsIdEvents,
  "/api/v1/runs/{id}/verdict": runsIdVerdict,
  "/api/v1/scripts": scripts,
  "/api/v1/scripts/{id}": scriptsId,
  "/api/v1/servers": servers,
  "/api/v1/servers/{id}": serversId,
  "/api/v1/session": session,
  "/api/v1/tokens": tokens,
  "/api/v1/tokens/{id}": tokensId,
  "/api/v1/uploads": uploads,
  "/api/v1/workers": workers,
};
