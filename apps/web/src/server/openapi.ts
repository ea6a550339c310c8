import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import {
  reportVisibilities,
  UPLOAD_MEDIA_TYPES,
  ZCancelledRun,
  ZCellDto,
  ZCreatedRun,
  ZCreatedToken,
  ZCreatedUpload,
  ZCreateReport,
  ZCreateToken,
  ZLiveCellStatus,
  ZLivePoint,
  ZLiveRunStatus,
  ZMatrixSpecInput,
  ZProblem,
  ZReportList,
  ZReportListQuery,
  ZRunComparison,
  ZRunDetail,
  ZRunDto,
  ZRunListPage,
  ZRunListQuery,
  ZRunSnapshotEvent,
  ZRunsComparison,
  ZRunsComparisonQuery,
  ZServerList,
  ZSession,
  ZSignIn,
  ZTokenDto,
  ZTokenList,
  ZUploadQuery,
  ZVerdict,
  ZVerdictQuery,
  ZWorkerList,
} from "@perflab/contracts";
import { z } from "zod";
import type { CreatedReportDto, ReportDto } from "../lib/report-dto";
import { CELLS_CSV_HEADERS } from "./cells-csv";

/**
 * Names a schema for components/schemas through zod's own `.meta({ id })`, which the generator
 * reads. (`registry.register` needs `extendZodWithOpenApi`, which patches zod's prototypes and
 * breaks when the library's CJS build and the app's ESM zod are different module instances.)
 */
const named = <T extends z.ZodType>(id: string, schema: T): T => schema.meta({ id });

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the routes validate with and
 * the DTOs are inferred from. A route without a path here fails tests/src/openapi.test.ts.
 */
/**
 * Report bodies: their DTO types live in lib/report-dto.ts, so these are built from the contracts'
 * run and cell schemas and checked against those types below (a change there fails typecheck).
 */
const ZCreatedReportDoc = z.object({
  slug: z.string(),
  url: z.string().describe("Absolute URL of the report page."),
});
const ZReportDoc = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  visibility: z.enum(["private", "unlisted", "public"]),
  runId: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }).nullable(),
  snapshot: z.object({
    version: z.literal(1),
    run: ZRunDto,
    cells: z.array(ZCellDto.extend({ serverBuild: z.unknown() })),
  }),
});
type Conforms<Dto extends Doc, Doc> = Dto;
export type ReportTypesConform = [
  Conforms<CreatedReportDto, z.infer<typeof ZCreatedReportDoc>>,
  Conforms<ReportDto, z.infer<typeof ZReportDoc>>,
];

function buildDocument() {
  const registry = new OpenAPIRegistry();

  const Problem = named("Problem", ZProblem);
  const MatrixSpec = named("MatrixSpec", ZMatrixSpecInput);
  const CreatedRun = named("CreatedRun", ZCreatedRun);
  const RunDetail = named("RunDetail", ZRunDetail);
  const CancelledRun = named("CancelledRun", ZCancelledRun);
  const ServerList = named("ServerList", ZServerList);
  const WorkerList = named("WorkerList", ZWorkerList);
  const CreatedReport = named("CreatedReport", ZCreatedReportDoc);
  const RunListPage = named("RunListPage", ZRunListPage);
  const RunSnapshotEvent = named("RunSnapshotEvent", ZRunSnapshotEvent);
  const LivePoint = named("LivePointEvent", ZLivePoint);
  const LiveCell = named("LiveCellEvent", ZLiveCellStatus);
  const LiveRun = named("LiveRunEvent", ZLiveRunStatus);

  const requestId = z.string().describe("The caller's x-request-id when short and plain, else a new UUID.");
  const headers = z.object({ "x-request-id": requestId });
  const problem = (description: string) => ({
    description,
    headers,
    content: { "application/problem+json": { schema: Problem } },
  });
  const runId = z.object({ id: z.string().describe("The run id, as returned by POST /api/v1/matrices.") });

  registry.registerComponent("securitySchemes", "apiToken", {
    type: "http",
    scheme: "bearer",
    description:
      "An API token (`plab_` and 43 characters), from Settings → API tokens or `pnpm -s token create`. " +
      "With `PERFLAB_ACCESS=token` every request that changes something needs one; reading stays open. " +
      "With `PERFLAB_ACCESS=private` reading needs one too, and shows that token's workspace only; " +
      "public and unlisted reports, the session and this document stay open. " +
      "In an open lab a token is optional, but one that is sent must be valid, and runs record it.",
  });
  /** Requests that change something: a token, or (in an open lab) none. */
  const writer: Record<string, string[]>[] = [{ apiToken: [] }, {}];
  /** Reads: open to anyone (but a private lab's), and a token that is sent must be valid. */
  const reader = writer;
  const readRefused = problem(
    "The API token sent was refused (malformed, unknown, revoked or expired), or the lab is private " +
      "(PERFLAB_ACCESS=private) and none was sent; `errors[].field` is `authorization`. Elsewhere " +
      "reading needs no token, but one that is sent is checked.",
  );
  /** A run a private lab's token may not see is as one that does not exist. */
  const noRun = problem("No run has this id (in a private lab: none of the token's workspace).");
  const refused = problem(
    "The API token was refused (unknown, revoked or expired; `errors[].field` says where it came from), " +
      "or the lab needs one and none was sent.",
  );
  const crossSite = problem(
    "A browser sent this change from a page of another site (its `Origin` is not this lab); " +
      "`errors[].field` is `origin`. Clients that send no Origin (curl, CI, the CLI) are not affected.",
  );
  const notAdmin = problem(
    "In a lab that needs tokens (PERFLAB_ACCESS=token or private), the token is a member's and this " +
      "takes an admin's (`errors[].field` is `authorization`), or another site's page sent it (`origin`).",
  );

  registry.registerPath({
    method: "post",
    path: "/api/v1/matrices",
    operationId: "createMatrixRun",
    security: writer,
    summary: "Queue a run of a benchmark matrix",
    description:
      "Validates the matrix against the server catalog, stores the run and its cells and queues one job per cell. " +
      "Send `x-perflab-client: web` only from the dashboard; every other run is recorded with source `api`.",
    request: { body: { required: true, content: { "application/json": { schema: MatrixSpec } } } },
    responses: {
      201: {
        description: "The run was queued.",
        headers,
        content: { "application/json": { schema: CreatedRun } },
      },
      400: problem("The body is not valid JSON."),
      413: problem("The body is larger than 1 MiB."),
      422: problem(
        "The matrix is invalid; `errors` names each field, e.g. `loadLevels.0.vus` or " +
          "`scenarios.0.params.arguments` (tool arguments are at most 64 KiB as JSON).",
      ),
      401: refused,
      403: crossSite,
      500: problem("Unexpected server error."),
      503: problem("The job queue is unavailable; the run was not created."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/runs",
    operationId: "listRuns",
    security: reader,
    summary: "Recent runs, newest first",
    description: "Keyset-paginated: pass a page's `nextCursor` as `cursor` to get the next page.",
    request: { query: ZRunListQuery },
    responses: {
      200: {
        description: "One page of runs.",
        headers,
        content: { "application/json": { schema: RunListPage } },
      },
      401: readRefused,
      422: problem("A query parameter is invalid; `errors[].field` names it."),
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/api/v1/runs/{id}/cancel",
    operationId: "cancelRun",
    security: writer,
    summary: "Cancel a queued or running run",
    description:
      "Queued cells end `cancelled` at once and their jobs are removed; a running cell is stopped by its worker " +
      "and recorded `cancelled` without a result. Finished cells keep their results. The run's status is `cancelled`.",
    request: { params: runId },
    responses: {
      202: {
        description: "The run is cancelled; running cells stop within seconds.",
        headers,
        content: { "application/json": { schema: CancelledRun } },
      },
      404: noRun,
      409: problem("The run has already ended."),
      401: refused,
      403: crossSite,
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/runs/{id}",
    operationId: "getRun",
    security: reader,
    summary: "A run with its cells and each finished cell's summary",
    request: { params: runId },
    responses: {
      200: { description: "The run.", headers, content: { "application/json": { schema: RunDetail } } },
      401: readRefused,
      404: noRun,
      500: problem("Unexpected server error."),
    },
  });

  const csv = (description: string) => ({
    description,
    headers: {
      ...headers,
      "content-disposition": z.string().describe('`attachment; filename="perflab-….csv"`'),
    },
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

  registry.registerPath({
    method: "get",
    path: "/api/v1/runs/{id}/comparison",
    operationId: "getRunComparison",
    security: reader,
    summary: "The run's servers compared per workload and load level, rounds aggregated",
    description:
      "What the run page's comparison draws: for each workload (scenario and parameters), server and load " +
      "level, the rounds' mean, sd, CV, 95 % interval and min–max of tool calls per second, p99, peak RSS and " +
      "calls per CPU-second; each group against the fastest of its level; what differed between the compared " +
      "cells (machine, k6 build, limits); failed or cancelled cells; and how many are not finished yet. " +
      "Only succeeded cells with a summary count.",
    request: { params: runId },
    responses: {
      200: {
        description: "The comparison, as it stands (a running run compares what has finished).",
        headers,
        content: { "application/json": { schema: named("RunComparison", ZRunComparison) } },
      },
      401: readRefused,
      404: noRun,
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/runs/{id}/verdict",
    operationId: "getRunVerdict",
    security: reader,
    summary: "The run judged against a baseline run: pass, fail or inconclusive, for CI",
    description:
      "Every server × workload × load level measured with a result in both runs, on tool calls per second, " +
      "p99 and peak RSS: a change beyond the tolerance is a regression (or an improvement) when the rounds' 95 % " +
      "intervals of the mean do not overlap, or a side has a single round; within the tolerance it is unchanged, " +
      "and beyond it with overlapping intervals (or, for throughput, a saturated k6) unclear, which does not fail. " +
      "`fail` when any check regressed. The baseline is `baseline`, else the run's `baselineRunId` (set by the " +
      "matrix or the upload). Both runs must have finished.",
    request: { params: runId, query: ZVerdictQuery },
    responses: {
      200: {
        description: "The verdict.",
        headers,
        content: { "application/json": { schema: named("Verdict", ZVerdict) } },
      },
      401: readRefused,
      404: problem(
        "No run has this id, or no run the baseline's (`errors` names `baseline`); in a private lab, " +
          "a run of another workspace than the token's is none.",
      ),
      409: problem("One of the runs is still queued or running."),
      422: problem(
        "No baseline given or stored, the run itself, or a bad `tolerance`; `errors` names the field.",
      ),
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/comparison",
    operationId: "compareRuns",
    security: reader,
    summary: "Several runs compared as one: a group per server and run",
    description:
      "The /compare page as data: the named runs' cells compared as if one run, each server labelled " +
      '"server · tag" (tag: the run\'s short commit, else what its name says beyond its servers and scenarios, ' +
      "else when it was created, to the minute; the driver, load levels or creation time are added where runs " +
      "would read alike), with " +
      "the same statistics, ratios and environment differences as a run's comparison. For a CI job comparing " +
      "its run against a baseline run.",
    request: { query: ZRunsComparisonQuery },
    responses: {
      200: {
        description: "The comparison of the runs.",
        headers,
        content: { "application/json": { schema: named("RunsComparison", ZRunsComparison) } },
      },
      401: readRefused,
      404: problem(
        "An id names no run (in a private lab: none of the token's workspace); `errors` names each.",
      ),
      422: problem("`runs` names fewer than two or more than eight runs."),
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/runs/{id}/cells.csv",
    operationId: "exportRunCells",
    security: reader,
    summary: "A run's cells and their summaries as CSV, for a spreadsheet",
    request: { params: runId },
    responses: {
      200: csv("The cells as they stand: a running run has rows without a summary yet."),
      401: readRefused,
      404: noRun,
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/runs/{id}/events",
    operationId: "streamRunEvents",
    security: reader,
    summary: "Live events of a run (server-sent events)",
    description:
      "A `text/event-stream`. Each `data:` line holds one JSON event: first a `snapshot` (the run, its cells " +
      "and stored points per cell), then live `point`, `cell` and `run` events as the worker publishes them. " +
      "Comment lines (`: heartbeat`) keep the connection open; `retry: 3000` sets the reconnect delay.",
    request: { params: runId },
    responses: {
      200: {
        description: "The event stream; the schema is that of one event's `data`.",
        headers,
        content: {
          "text/event-stream": {
            schema: z
              .discriminatedUnion("type", [RunSnapshotEvent, LivePoint, LiveCell, LiveRun])
              .describe("One event's data, discriminated by `type`."),
          },
        },
      },
      401: readRefused,
      404: noRun,
      500: problem("Unexpected server error."),
      503: problem(
        "Live updates are unavailable: Redis did not answer, or this web process already serves " +
          "PERFLAB_MAX_LIVE_STREAMS streams.",
      ),
    },
  });

  registry.registerPath({
    method: "head",
    path: "/api/v1/runs/{id}/events",
    operationId: "checkRunEvents",
    security: reader,
    summary: "Whether a run's live events can be streamed, without opening the stream",
    description:
      "The status and headers a GET would answer, with no body: it opens no stream and takes none of " +
      "the process's PERFLAB_MAX_LIVE_STREAMS.",
    request: { params: runId },
    responses: {
      200: { description: "The run exists and a stream would be served (`text/event-stream`).", headers },
      401: readRefused,
      404: { description: "No run has this id (in a private lab: none of the token's workspace).", headers },
      500: { description: "Unexpected server error.", headers },
      503: { description: "This web process already serves PERFLAB_MAX_LIVE_STREAMS streams.", headers },
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/servers",
    operationId: "listServers",
    security: reader,
    summary: "The MCP servers a matrix may name",
    responses: {
      200: {
        description: "The server catalog.",
        headers,
        content: { "application/json": { schema: ServerList } },
      },
      401: readRefused,
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/workers",
    operationId: "listWorkers",
    security: reader,
    summary: "The running workers: who takes queued cells, and whether they reach a Docker engine",
    description:
      "Each worker rewrites its entry every 5 s and checks its Docker engine every 15 s; an entry " +
      "lapses 15 s after a worker was killed. No workers: queued cells wait until one starts.",
    responses: {
      200: {
        description: "The workers, by host.",
        headers,
        content: { "application/json": { schema: WorkerList } },
      },
      401: readRefused,
      500: problem("Unexpected server error."),
      503: problem("Redis did not answer."),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/api/v1/reports",
    operationId: "createReport",
    security: writer,
    summary: "Freeze a finished run behind an unguessable permalink",
    description:
      `Visibility is one of ${reportVisibilities.join(", ")}. A private report opens only for a caller ` +
      "with a token of its workspace, so creating one needs a token too (a 401 names `visibility`). " +
      "Sharing a run again alike returns the existing report (200) rather than a new permalink.",
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: named("CreateReport", ZCreateReport) } },
      },
    },
    responses: {
      200: {
        description:
          "The run was already shared alike (same cells, snapshot, title, description and visibility): that report, its slug and `location`.",
        headers,
        content: { "application/json": { schema: CreatedReport } },
      },
      201: {
        description: "The report was created; `location` holds its URL.",
        headers,
        content: { "application/json": { schema: CreatedReport } },
      },
      400: problem("The body is not valid JSON."),
      404: problem("The run does not exist."),
      413: problem("The body is larger than 1 MiB."),
      409: problem("The run has not finished yet."),
      422: problem("The request is invalid; `errors` names each field."),
      401: refused,
      403: crossSite,
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/reports",
    operationId: "listReports",
    security: writer,
    summary: "Reports this caller may see, newest first (no snapshots)",
    description:
      "Public reports for anyone; unlisted ones too in an open lab, or with a token of their workspace; " +
      "private ones only with such a token. A private lab lists a token's own workspace's reports only, " +
      "and none without a token (a 401). Expired reports are left out.",
    request: { query: ZReportListQuery },
    responses: {
      200: {
        description: "The reports.",
        headers,
        content: { "application/json": { schema: named("ReportList", ZReportList) } },
      },
      401: readRefused,
      422: problem("The query string is invalid; `errors` names each parameter."),
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "delete",
    path: "/api/v1/reports/{slug}",
    operationId: "revokeReport",
    security: writer,
    summary: "Take a report's permalink down for good (its address answers 404 from then on)",
    description:
      "A token of the report's workspace may revoke any of its reports; in an open lab anyone may revoke " +
      "the reports anyone there can open (not private ones). Sharing the run again makes a new permalink.",
    request: { params: z.object({ slug: z.string().describe("The report's slug, from its URL.") }) },
    responses: {
      204: { description: "The report is gone.", headers },
      401: refused,
      403: crossSite,
      404: problem(
        "No report lives at this address, or it is private (or, in a lab that needs tokens, of another workspace) and no token of its workspace was sent.",
      ),
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/reports/{slug}",
    operationId: "getReport",
    security: writer,
    summary: "A report: the run and cells as frozen when it was created",
    request: { params: z.object({ slug: z.string().describe("The report's slug, from its URL.") }) },
    responses: {
      200: {
        description: "The report.",
        headers,
        content: { "application/json": { schema: named("Report", ZReportDoc) } },
      },
      401: problem("The token sent was refused (a private report needs a valid one)."),
      404: problem(
        "No report lives at this address, it has expired, or it is private and no token of its workspace was sent.",
      ),
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/reports/{slug}/cells.csv",
    operationId: "exportReportCells",
    security: writer,
    summary: "A report's cells as CSV, as frozen when it was created",
    request: { params: z.object({ slug: z.string().describe("The report's slug, from its URL.") }) },
    responses: {
      200: csv("The frozen cells, the same columns as a run's export."),
      401: problem("The token sent was refused (a private report needs a valid one)."),
      404: problem(
        "No report lives at this address, it has expired, or it is private and no token of its workspace was sent.",
      ),
      500: problem("Unexpected server error."),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/api/v1/uploads",
    operationId: "uploadK6Results",
    security: writer,
    summary: "Store a CI job's k6 results as a finished run",
    description:
      "The body is the NDJSON perflab's k6 writes with `--out perflab=<file>` (a start line, one line per " +
      "second with HDR histograms, an end line), at most 50 MiB; what was measured goes in the query string. " +
      "The histograms are merged exactly as for runs the worker measures: the summary covers requests " +
      "tagged phase=measure only. The run (source `api`), its one cell, the cell's summary and its " +
      "per-second points are written in one transaction.",
    request: {
      query: ZUploadQuery,
      body: {
        required: true,
        // NDJSON by its registered and common names (each line is JSON, so application/json too).
        content: Object.fromEntries(
          UPLOAD_MEDIA_TYPES.map((type) => [
            type,
            { schema: z.string().describe("One JSON object per line, as perflab's k6 output wrote them.") },
          ]),
        ),
      },
    },
    responses: {
      201: {
        description: "The run was stored; `location` holds its URL.",
        headers,
        content: { "application/json": { schema: named("CreatedUpload", ZCreatedUpload) } },
      },
      413: problem("The body is larger than 50 MiB."),
      415: problem(
        "The body is not NDJSON: send `content-type: application/x-ndjson` (or `application/jsonl`, " +
          "`application/json`, `text/plain`).",
      ),
      422: problem(
        "A query parameter or the k6 output is invalid; `errors[].field` names the parameter (`durationSec` " +
          "when the output's seconds contradict it), or the line as `line <n>` (1-based), or a group as " +
          '`group {"phase":…,"method":…,"tool":…}` when its failed requests, failed operations or latencies ' +
          "contradict its requests over the whole output, or `(body)` when the start or end line is missing.",
      ),
      401: refused,
      403: crossSite,
      500: problem("Unexpected server error."),
    },
  });

  const Token = named("Token", ZTokenDto);
  const Session = named("Session", ZSession);
  registry.registerPath({
    method: "get",
    path: "/api/v1/tokens",
    operationId: "listTokens",
    summary: "The workspace's API tokens (never their secrets)",
    security: writer,
    responses: {
      200: {
        description: "Newest first.",
        headers,
        content: { "application/json": { schema: named("TokenList", ZTokenList) } },
      },
      401: refused,
      403: notAdmin,
      500: problem("Unexpected server error."),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/tokens",
    operationId: "createToken",
    summary: "Create an API token; its secret is in this response only",
    description: "perflab keeps the secret's SHA-256 and its first 12 characters, nothing else.",
    security: writer,
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: named("CreateToken", ZCreateToken) } },
      },
    },
    responses: {
      201: {
        description: "The token and its secret.",
        headers,
        content: { "application/json": { schema: named("CreatedToken", ZCreatedToken) } },
      },
      400: problem("The body is not valid JSON."),
      401: refused,
      403: notAdmin,
      422: problem("The request is invalid; `errors` names each field (`name`, `expiresInDays`, `role`)."),
      500: problem("Unexpected server error."),
    },
  });
  registry.registerPath({
    method: "delete",
    path: "/api/v1/tokens/{id}",
    operationId: "revokeToken",
    summary: "Revoke an API token at once (it stays listed, as revoked)",
    security: writer,
    request: { params: z.object({ id: z.string().describe("The token's id.") }) },
    responses: {
      200: {
        description: "The revoked token; revoking twice changes nothing.",
        headers,
        content: { "application/json": { schema: Token } },
      },
      401: refused,
      403: problem(
        "The token is a member's and the one to revoke is not itself (a lab that needs tokens), or another site's page sent it.",
      ),
      404: problem("No token of this workspace has this id."),
      500: problem("Unexpected server error."),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/session",
    operationId: "getSession",
    summary: "The lab's access mode and the token this request authenticated with",
    security: writer,
    responses: {
      200: {
        description: "`token` is null without a credential.",
        headers,
        content: { "application/json": { schema: Session } },
      },
      401: refused,
      500: problem("Unexpected server error."),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/session",
    operationId: "signIn",
    summary: "Sign the dashboard in with a token",
    description:
      "Sets the token in an HttpOnly, SameSite=Strict cookie (Secure over https) for at most 30 days.",
    request: {
      body: { required: true, content: { "application/json": { schema: named("SignIn", ZSignIn) } } },
    },
    responses: {
      200: { description: "Signed in.", headers, content: { "application/json": { schema: Session } } },
      400: problem("The body is not valid JSON."),
      401: problem("The token was refused; `errors[].field` is `token`."),
      403: crossSite,
      422: problem("The request is invalid; `errors` names the field."),
      500: problem("Unexpected server error."),
    },
  });
  registry.registerPath({
    method: "delete",
    path: "/api/v1/session",
    operationId: "signOut",
    summary: "Sign the dashboard out (the token stays valid; revoke it to stop it everywhere)",
    responses: { 204: { description: "The sign-in cookie is cleared.", headers }, 403: crossSite },
  });

  registry.registerPath({
    method: "get",
    path: "/api/v1/openapi.json",
    operationId: "getOpenApiDocument",
    security: reader,
    summary: "This document",
    description: "Open in every lab, a private one too: it describes the API and holds no results.",
    responses: {
      200: {
        description: "The OpenAPI 3.1 document of /api/v1.",
        content: { "application/json": { schema: z.unknown() } },
      },
      401: problem(
        "The API token sent was refused (malformed, unknown, revoked or expired); `errors[].field` is " +
          "`authorization`. No token is needed, but one that is sent is checked.",
      ),
    },
  });

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "perflab API",
      version: "1",
      description:
        "Queue benchmark matrices of MCP server runtimes and read their runs. Errors are RFC 9457 problem " +
        "details; a path no route has answers 404, and a method a route does not serve 405 with an `Allow` " +
        "header listing the ones it does (with HEAD beside GET, and OPTIONS).",
    },
  });
}

let cached: ReturnType<typeof buildDocument> | undefined;

/** Built once per process: the schemas do not change while it runs. */
export function getOpenApiDocument() {
  cached ??= buildDocument();
  return cached;
}
