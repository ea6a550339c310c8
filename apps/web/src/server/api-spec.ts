import type { ResponseConfig, RouteConfig } from "@asteasolutions/zod-to-openapi";
import { fieldErrors, ZProblem } from "@perflab/contracts";
import { z } from "zod";
import { CELLS_CSV_HEADERS } from "./cells-csv";
import { AppError } from "./errors";

/**
 * What each route declares beside its handler (the `schema.ts` next to its `route.ts`): per method,
 * what it takes and answers. The OpenAPI document is generated from these declarations, and the
 * handlers parse their input with the same schemas. Method and path come from the export's name
 * and the folder, so they are never written twice.
 */
export type ApiOperation = Omit<RouteConfig, "method" | "path">;

export const API_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
export type ApiMethod = (typeof API_METHODS)[number];

/** Keeps the declaration's own types, so a handler's parsed input is typed by its schema. */
export const declareOperation = <const T extends ApiOperation>(operation: T): T => operation;

/**
 * Names a schema for components/schemas through zod's own `.meta({ id })`, which the generator
 * reads. (`registry.register` needs `extendZodWithOpenApi`, which patches zod's prototypes and
 * breaks when the library's CJS build and the app's ESM zod are different module instances.)
 */
export const named = <T extends z.ZodType>(id: string, schema: T): T => schema.meta({ id });

const Problem = named("Problem", ZProblem);

const requestId = z.string().describe("The caller's x-request-id when short and plain, else a new UUID.");
export const headers = z.object({ "x-request-id": requestId });

/** An RFC 9457 problem answer. */
export const problem = (description: string): ResponseConfig => ({
  description,
  headers,
  content: { "application/problem+json": { schema: Problem } },
});

/** A JSON answer. */
export const json = (description: string, schema: z.ZodType): ResponseConfig => ({
  description,
  headers,
  content: { "application/json": { schema } },
});

/** Requests that change something: a token, or (in an open lab) none. */
export const writer: Record<string, string[]>[] = [{ apiToken: [] }, {}];
/** Reads: open to anyone (but a private lab's), and a token that is sent must be valid. */
export const reader = writer;

export const serverError = problem("Unexpected server error.");
export const readRefused = problem(
  "The API token sent was refused (malformed, unknown, revoked or expired), or the lab is private " +
    "(PERFLAB_ACCESS=private) and none was sent; `errors[].field` is `authorization`. Elsewhere " +
    "reading needs no token, but one that is sent is checked.",
);
export const refused = problem(
  "The API token was refused (unknown, revoked or expired; `errors[].field` says where it came from), " +
    "or the lab needs one and none was sent.",
);
export const crossSite = problem(
  "A browser sent this change from a page of another site (its `Origin` is not this lab); " +
    "`errors[].field` is `origin`. Clients that send no Origin (curl, CI, the CLI) are not affected.",
);
export const notAdmin = problem(
  "In a lab that needs tokens (PERFLAB_ACCESS=token or private), the token is a member's and this " +
    "takes an admin's (`errors[].field` is `authorization`), or another site's page sent it (`origin`).",
);
export const badJson = problem("The body is not valid JSON.");

const retryAfter = headers.extend({
  "retry-after": z.string().describe("Seconds to wait before trying again."),
});

/** The 429 of a rate limit (server/rate-limit.ts). */
export const rateLimited: ResponseConfig = {
  ...problem(
    "Too many requests from this token or client address (`errors[].field` is `authorization` or " +
      "`(client address)`; the message names the limit, e.g. `uploads`). The limits are settings " +
      "(docs/configuration.md).",
  ),
  headers: retryAfter,
};

/** The header a creating request may send to be retried safely (server/idempotency.ts). */
export const IDEMPOTENCY_HEADER = "idempotency-key";
export const idempotencyHeaders = z.object({
  [IDEMPOTENCY_HEADER]: z
    .string()
    .optional()
    .describe(
      "A key of the caller's choosing (1-255 printable ASCII characters, a UUID say): a repeat with the " +
        "same key returns the first answer and creates nothing, for PERFLAB_IDEMPOTENCY_TTL_HOURS. The " +
        "same key with another body is a 422 naming `idempotency-key`.",
    ),
});

/** The 409 of a repeat that arrives while its first request is still being answered. */
export const idempotencyInFlight: ResponseConfig = {
  ...problem(
    "A request with this `Idempotency-Key` is still being answered (`errors[].field` is " +
      "`idempotency-key`); retry after `Retry-After` seconds to get its answer.",
  ),
  headers: retryAfter,
};

/** The path of every /api/v1/runs/{id}/… route. */
export const ZRunParams = z.object({
  id: z.string().describe("The run id, as returned by POST /api/v1/matrices."),
});
/** A run a private lab's token may not see is as one that does not exist. */
export const noRun = problem("No run has this id (in a private lab: none of the token's workspace).");

/** The cells of a run or a report as CSV, for a spreadsheet. */
export const cellsCsv = (description: string): ResponseConfig => ({
  description,
  headers: headers.extend({
    "content-disposition": z.string().describe('`attachment; filename="perflab-….csv"`'),
  }),
  content: {
    "text/csv": {
      schema: z
        .string()
        .describe(
          "RFC 4180 CSV, a header line then one row per cell in execution order. Columns: " +
            `${CELLS_CSV_HEADERS.join(", ")}. Units are in the names (ms, pct of one core, mb = MiB, s); ` +
            "an empty field has no value (a cell without a summary, a process without limits).",
        ),
    },
  },
});

/** The query string, parsed with the schema the route declares: a 422 names each bad parameter. */
export function parseQuery<S extends z.ZodType>(
  operation: { request: { query: S } },
  query: unknown,
): z.output<S> {
  const parsed = operation.request.query.safeParse(query);
  if (!parsed.success) {
    throw new AppError("invalid", "The query string is invalid.", fieldErrors(parsed.error));
  }
  return parsed.data as z.output<S>;
}

/** The path's parameters, parsed with the schema the route declares. */
export function parseParams<S extends z.ZodType>(
  operation: { request: { params: S } },
  params: unknown,
): z.output<S> {
  const parsed = operation.request.params.safeParse(params);
  if (!parsed.success) throw new AppError("invalid", "The path is invalid.", fieldErrors(parsed.error));
  return parsed.data as z.output<S>;
}

/** A JSON body, parsed with the schema the route declares; `invalid` is the 422's detail. */
export function parseJsonBody<S extends z.ZodType>(
  operation: { request: { body: { content: { "application/json": { schema: S } } } } },
  body: unknown,
  invalid: string,
): z.output<S> {
  const parsed = operation.request.body.content["application/json"].schema.safeParse(body);
  if (!parsed.success) throw new AppError("invalid", invalid, fieldErrors(parsed.error));
  return parsed.data as z.output<S>;
}
