import { z } from "zod";
import { numeric } from "./fields.ts";
import { ZLivePoint } from "./live.ts";
import { ZDriverId, ZMatrixSpecInput, ZRoundsDecision } from "./matrix.ts";
import { ZServerInfo } from "./server-manifest.ts";
import { ZCellStatus, ZRunStatus } from "./statuses.ts";

/**
 * Shapes of the REST API's responses and query strings. The routes send these, the web app's DTO
 * types are inferred from them, and the OpenAPI document is generated from them.
 */

export { cellStatuses, runStatuses, ZCellStatus, ZRunStatus } from "./statuses.ts";
export const ZRunSource = z.enum(["ui", "api"]);

const isoDate = z.iso.datetime({ offset: true });

/**
 * The API token a run was queued or uploaded with: who, in a lab with several CI jobs and people.
 * Its id and name only: runs are read by anyone who reaches the lab, while the secret's first
 * characters stay on the token list, which only admins read.
 */
export const ZRunToken = z.object({ id: z.string(), name: z.string() });

export const ZRunDto = z.object({
  id: z.string(),
  name: z.string(),
  source: ZRunSource,
  status: ZRunStatus,
  /**
   * The validated matrix, frozen at submission. Stored specs may carry more (an uploaded run's
   * `upload` block), so unlike a submitted matrix this one allows other keys.
   */
  spec: ZMatrixSpecInput.loose(),
  /** The run this one is judged against (GET /api/v1/runs/:id/verdict), if it names one. */
  baselineRunId: z.string().nullable(),
  error: z.string().nullable(),
  cellsTotal: z.number().int(),
  cellsDone: z.number().int(),
  cellsFailed: z.number().int(),
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  /** Absent from reports frozen before runs kept it. */
  rounds: ZRoundsDecision.nullable()
    .optional()
    .describe(
      "An adaptive run's last look (spec.adaptive): why it stopped after how many rounds, or that it is adding rounds; null for a fixed number of rounds.",
    ),
  token: ZRunToken.nullable()
    .optional()
    .describe("The API token the run was queued or uploaded with; null without one. Not in reports."),
});

export const ZLatencyDto = z.object({
  avgMs: z.number().nullable(),
  minMs: z.number().nullable(),
  maxMs: z.number().nullable(),
  p50: z.number().nullable(),
  p90: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  p999: z.number().nullable(),
});

export const ZDriftMeasure = z.object({
  first: z.number().nullable().describe("Over the first tenth of the measured window."),
  last: z.number().nullable().describe("Over the last tenth."),
  changePct: z.number().nullable().describe("(last − first) ÷ first, in percent."),
});

/** A long cell's drift: the last tenth of the measured window against the first. */
export const ZDrift = z.object({
  tenthSeconds: z.number(),
  opsRps: ZDriftMeasure,
  p99Ms: ZDriftMeasure,
  rssBytes: ZDriftMeasure.extend({
    slopePerHour: z
      .number()
      .nullable()
      .describe("Least-squares trend of server RSS over the window, bytes per hour."),
  }),
});

/**
 * The share of a cell's measured operations that failed, in percent: errors per tool call (an
 * http-route cell's GET), not per HTTP request: a call in a session of its own is four requests,
 * which would make the same failures look four times rarer. A failed session setup counts as a
 * failed call (at most 100 %). Per request for a cell without operations (an uploaded script's).
 */
export function failedCallsPct(s: { requests: number; errors: number; ops: number }): number | null {
  if (s.ops > 0) return Math.min(100, (s.errors * 100) / s.ops);
  return s.requests > 0 ? (s.errors * 100) / s.requests : null;
}

export const ZCellSummaryDto = z.object({
  requests: z.number(),
  errors: z.number(),
  ops: z.number(),
  httpRps: z.number(),
  opsRps: z.number(),
  requestsPerOp: z.number().nullable(),
  latency: ZLatencyDto,
  operations: z.unknown(),
  cpuAvgPct: z.number().nullable(),
  cpuPeakPct: z.number().nullable(),
  rssAvgBytes: z.number().nullable(),
  rssPeakBytes: z.number().nullable(),
  k6CpuAvgPct: z.number().nullable(),
  k6CpuPeakPct: z.number().nullable(),
  k6RssPeakBytes: z.number().nullable(),
  /** Open model: calls k6 dropped for want of a free VU in the measured window; null for the closed model. */
  droppedCalls: z.number().nullable(),
  /** The last tenth of the measured window against the first; null under 20 s (and before drift existed). */
  drift: ZDrift.nullable(),
  windowSeconds: z.number(),
});

export const ZCellDto = z.object({
  id: z.string(),
  index: z.number().int(),
  serverName: z.string(),
  scenario: z.string(),
  /** Closed model: the level's VUs; null for an open-model level. */
  vus: z.number().int().nullable(),
  /** Open model: tool calls started per second; null for a closed-model level. */
  rate: z.number().int().nullable(),
  /** Open model: the VUs k6 may use to keep the rate. */
  maxVus: z.number().int().nullable(),
  params: z.record(z.string(), z.unknown()),
  round: z.number().int(),
  status: ZCellStatus,
  /** Last stage the worker reported live (building, starting, load...); not stored. */
  stage: z.string().nullable(),
  driver: z.string(),
  /**
   * What the driver enforced: CPU quota, memory, and the CPUs the container was pinned to (if any).
   * Null for a plain process, and until the server has started (the run's spec keeps what was asked).
   */
  limits: z.object({ cpus: z.number(), memoryMb: z.number(), cpuset: z.string().nullable() }).nullable(),
  /** Container image tag and content id (sha256:…), when the cell ran in a container. */
  image: z.string().nullable(),
  imageId: z.string().nullable(),
  runtimeVersion: z
    .string()
    .nullable()
    .describe(
      "The runtime's own version as the server reported it at start (`runtime.version` of /debug/runtime: go1.26.8, v20.20.2, 3.11.7), beside the manifest's `runtime`; null for uploads and servers that did not say.",
    ),
  idleRssBytes: z.number().nullable(),
  heldSessions: z
    .number()
    .int()
    .nullable()
    .describe(
      "MCP sessions the cell held open: VUs × sessionsPerVu; null for a new session per call and the open model.",
    ),
  rssPerSessionBytes: z
    .number()
    .nullable()
    .describe(
      "(mean server RSS of the measured window − idle RSS) ÷ heldSessions, for workloads that hold sessions (sessionsPerVu or thinkMs set).",
    ),
  parallelism: z.unknown(),
  durationSeconds: z.number().int(),
  warmupSeconds: z.number().int(),
  k6Version: z.string().nullable(),
  hostFingerprint: z.unknown(),
  coldStartMs: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  exitSignal: z.string().nullable(),
  oomKilled: z.boolean(),
  k6Saturated: z.boolean(),
  otherCpuPct: z
    .number()
    .nullable()
    .describe(
      "CPU the machine spent on anything but the server and k6 while the cell measured, in % of one core (machine CPU × cores − server − k6); null where perflab cannot tell (the docker driver; a tool or route that calls the fixtures, whose CPU is the cell's but not its server's) or before the cell has a summary.",
    ),
  machineBusy: z
    .boolean()
    .describe(
      "Other work took at least a quarter of the machine while the cell measured (otherCpuPct ≥ 25 × cores): the server and k6 competed with it.",
    ),
  warmingUp: z
    .boolean()
    .describe(
      "The server was still getting faster while the cell measured (a JIT compiling, caches filling): at a closed-model level with a window of 20 s or more, the last tenth of the window made at least 25 % more calls per second than the first (summary.drift.opsRps). Queue it with a longer warm-up.",
    ),
  error: z.string().nullable(),
  logTail: z.string().nullable(),
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  summary: ZCellSummaryDto.nullable(),
});

/** GET /api/v1/runs/{id}. */
export const ZRunDetail = z.object({ run: ZRunDto, cells: z.array(ZCellDto) });

/** 202 of POST /api/v1/runs/{id}/cancel. */
export const ZCancelledRun = z.object({
  run: ZRunDto,
  /** Queued cells that were cancelled before they ran. */
  cancelledCells: z.array(z.string()),
  /** Cells running at that moment; their workers stop them and record them `cancelled`. */
  runningCells: z.number().int(),
});

/** The first event of GET /api/v1/runs/{id}/events; live `point`, `cell` and `run` events follow. */
export const ZRunSnapshotEvent = z.object({
  type: z.literal("snapshot"),
  run: ZRunDto,
  cells: z.array(ZCellDto),
  /** Stored points per cell id, oldest first. */
  points: z.record(z.string(), z.array(ZLivePoint)),
});

/** 201 of POST /api/v1/matrices. */
export const ZCreatedRun = z.object({
  runId: z.string(),
  cells: z.array(
    z.object({
      id: z.string(),
      index: z.number().int(),
      serverName: z.string(),
      scenario: z.string(),
      vus: z.number().int().nullable(),
      rate: z.number().int().nullable(),
      maxVus: z.number().int().nullable(),
      round: z.number().int(),
    }),
  ),
});

/** GET /api/v1/servers. */
export const ZServerList = z.object({
  servers: z.array(ZServerInfo),
  /**
   * The driver this lab's run form starts on (PERFLAB_DEFAULT_DRIVER; docker in docker-compose.yml),
   * which its studies' quick variants use. A matrix without `driver` still runs locally.
   */
  defaultDriver: ZDriverId,
});

// ---- GET /api/v1/runs ----

/** Position after the last run of a page: newest first, ties broken by id. */
export type RunCursor = { createdAt: Date; id: string };

/** Opaque to clients; `<createdAt ms>.<id>` so it stays readable in logs and needs no Buffer. */
export function encodeRunCursor(cursor: RunCursor): string {
  return `${cursor.createdAt.getTime()}.${cursor.id}`;
}

/** The cursor's position, or null when it is not one this API handed out. */
export function decodeRunCursor(value: string): RunCursor | null {
  const match = /^(\d{1,15})\.([\w-]{1,64})$/.exec(value);
  if (!match) return null;
  const createdAt = new Date(Number(match[1]));
  if (Number.isNaN(createdAt.getTime())) return null;
  return { createdAt, id: match[2]! };
}

const filterText = z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters");

/** Query string of GET /api/v1/runs; each value arrives as a string, unknown keys are ignored. */
export const ZRunListQuery = z.object({
  limit: numeric(
    z
      .number({ error: "must be a number" })
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(100, "must be at most 100"),
  )
    .default(20)
    .describe("Runs per page, 1–100."),
  cursor: z
    .string()
    .refine((value) => decodeRunCursor(value) !== null, "is not a cursor this API returned")
    .optional()
    .describe("The `nextCursor` of the previous page."),
  status: ZRunStatus.optional().describe("Only runs in this status."),
  gitRepo: filterText.optional().describe("Only runs of this repository, as sent in `git.repo`."),
  gitBranch: filterText.optional().describe("Only runs of this branch, as sent in `git.branch`."),
});
export type TRunListQuery = z.output<typeof ZRunListQuery>;

export const ZRunListItem = z.object({
  id: z.string(),
  name: z.string(),
  status: ZRunStatus,
  source: ZRunSource,
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  cellsTotal: z.number().int(),
  cellsDone: z.number().int(),
  cellsFailed: z.number().int(),
  git: z.object({
    repo: z.string().nullable(),
    branch: z.string().nullable(),
    commit: z.string().nullable(),
    pr: z.number().int().nullable(),
  }),
  token: ZRunToken.nullable().describe("The API token the run was queued or uploaded with."),
  /** Path of the run's dashboard page, relative to the web app's origin. */
  url: z.string().describe("Path of the run page, e.g. /runs/{id}."),
});

export const ZRunListPage = z.object({
  runs: z.array(ZRunListItem),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});

export type TRunListItem = z.infer<typeof ZRunListItem>;
export type TRunListPage = z.infer<typeof ZRunListPage>;

/** One measure over the rounds of a server × load level. */
export const ZRoundStats = z.object({
  n: z.number().int().describe("Rounds with a value."),
  mean: z.number(),
  sd: z.number().describe("Sample standard deviation (n − 1); 0 for one round."),
  cv: z.number().nullable().describe("Coefficient of variation, sd ÷ |mean|; null for one round."),
  ci95: z
    .tuple([z.number(), z.number()])
    .nullable()
    .describe("95 % confidence interval of the mean (Student's t); null for one round."),
  min: z.number(),
  max: z.number(),
});

/** A load level in a comparison: exactly one of vus and rate is set (neither for a cell without one). */
const comparisonLevel = {
  vus: z
    .number()
    .int()
    .nullable()
    .describe("Closed model: VUs calling back to back; null for an open-model level."),
  rate: z
    .number()
    .int()
    .nullable()
    .describe(
      "Open model: tool calls started per second (k6's constant-arrival-rate); null for a closed-model level.",
    ),
};

/** What the single-run and the cross-run comparison share. */
const comparisonBody = {
  /** The servers in the run's spec order (across runs, "server · tag", run after run). */
  servers: z.array(z.string()),
  workloads: z.array(
    z.object({
      scenario: z.string(),
      tool: z.string().nullable(),
      params: z.record(z.string(), z.unknown()),
      levels: z
        .array(z.object(comparisonLevel))
        .describe(
          "The workload's load levels: closed-model levels by VUs, then open-model levels by rate. 50 VUs " +
            "and 50 calls/s are two levels.",
        ),
      groups: z.array(
        z.object({
          server: z.string(),
          ...comparisonLevel,
          rounds: z.number().int().describe("Succeeded rounds with a summary."),
          k6SaturatedRounds: z.number().int(),
          machineBusyRounds: z
            .number()
            .int()
            .describe(
              "Rounds measured while other work took a quarter of the machine or more (a cell's machineBusy).",
            ),
          warmingUpRounds: z
            .number()
            .int()
            .describe(
              "Rounds whose server was still getting faster while they measured (a cell's warmingUp).",
            ),
          opsRps: ZRoundStats.describe(
            "MCP tool calls per second. At an open-model level k6 offers the rate: this shows whether the " +
              "server kept up, not how fast it could go.",
          ),
          p99Ms: ZRoundStats.nullable(),
          rssPeakBytes: ZRoundStats.nullable(),
          opsPerCpuSecond: ZRoundStats.nullable().describe("Tool calls per second per core of server CPU."),
          failedCallsPct: ZRoundStats.nullable().describe(
            "The share of calls that failed, in percent (errors per tool call; a failed session setup counts " +
              "as a failed call). opsRps counts failed calls too: a server answering fast with errors is not fast.",
          ),
          versusFastest: z.object({
            ratio: z.number().describe("Mean ops/s ÷ the fastest server's at this level."),
            fastest: z.boolean(),
            separation: z
              .enum(["apart", "overlap"])
              .nullable()
              .describe(
                "apart: the 95 % intervals of the two means do not overlap (a conservative test: the difference " +
                  "is clear); overlap: they do (these rounds show no clear difference; more rounds may); null for " +
                  "the fastest itself or a single round on either side.",
              ),
          }),
        }),
      ),
    }),
  ),
  /** Aspects of where and how the compared cells ran that are not the same for all of them. */
  environment: z.array(
    z.object({
      aspect: z.enum(["machine", "k6", "limits", "window", "runtime"]),
      variants: z.array(
        z.object({ label: z.string(), cells: z.number().int(), servers: z.array(z.string()) }),
      ),
    }),
  ),
  /** Failed or cancelled cells: no result to compare. */
  missing: z.array(
    z.object({
      index: z.number().int(),
      serverName: z.string(),
      ...comparisonLevel,
      round: z.number().int(),
      status: ZCellStatus,
      error: z.string().nullable(),
    }),
  ),
  /** Cells not finished yet. */
  pending: z.number().int(),
};

/** GET /api/v1/runs/{id}/comparison: the run's comparison, as the run page draws it. */
export const ZRunComparison = z.object({ runId: z.string(), ...comparisonBody });

/** Most runs one cross-run comparison takes. */
export const MAX_RUNS_TO_COMPARE = 8;

/** Run ids from a `runs` parameter (comma-separated, or repeated): trimmed, distinct, in order. */
export function splitRunIds(value: string | readonly string[] | null | undefined): string[] {
  const parts = (typeof value === "string" ? [value] : (value ?? [])).flatMap((v) => v.split(","));
  return [...new Set(parts.map((p) => p.trim()).filter(Boolean))];
}

/** The query of GET /api/v1/comparison. */
export const ZRunsComparisonQuery = z.object({
  runs: z
    .string()
    .transform((value) => splitRunIds(value))
    .pipe(
      z
        .array(z.string())
        .min(2, "name at least two runs")
        .max(MAX_RUNS_TO_COMPARE, `name at most ${MAX_RUNS_TO_COMPARE} runs`),
    )
    .describe(`Comma-separated run ids, 2 to ${MAX_RUNS_TO_COMPARE}, oldest first as the bars should read.`),
});

/**
 * GET /api/v1/comparison: several runs compared as one, each server labelled "server · tag" per run
 * (tag: the run's short commit, else what its name says beyond its servers and scenarios; runs that
 * would share a tag get their driver, load levels, date or time of creation, else the end of their id).
 */
export const ZRunsComparison = z.object({
  runs: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      tag: z.string(),
      commit: z.string().nullable(),
      status: ZRunStatus,
    }),
  ),
  ...comparisonBody,
});

/** Query of GET /api/v1/runs/{id}/verdict. */
export const ZVerdictQuery = z.object({
  baseline: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(64, "must be at most 64 characters")
    .optional()
    .describe("The run to judge against; defaults to the run's own baselineRunId."),
  // An empty `tolerance=` is an error, not 0 (which z.coerce would make of it: no tolerance at all).
  tolerance: z
    .preprocess(
      (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value),
      z.number({ error: "must be a number" }).min(0, "must not be negative").max(100, "must be at most 100"),
    )
    .default(10)
    .describe("Percent of change on a metric that is not called a regression (default 10)."),
});

/** Which server, workload (scenario and parameters) and load level a verdict's entry is about. */
const verdictWhere = {
  scenario: z.string(),
  params: z.record(z.string(), z.unknown()),
  server: z.string(),
  ...comparisonLevel,
};

const ZVerdictMetric = z.enum(["opsRps", "p99Ms", "rssPeakBytes", "errorPct"]);

/** GET /api/v1/runs/{id}/verdict: a run judged against a baseline run, for CI. */
export const ZVerdict = z.object({
  runId: z.string(),
  baselineRunId: z.string(),
  outcome: z
    .enum(["pass", "fail", "inconclusive"])
    .describe(
      "fail: some check regressed, or cells with a result in the baseline failed; pass: neither; inconclusive: no server, workload and level matched.",
    ),
  tolerancePct: z.number(),
  checks: z.array(
    z.object({
      ...verdictWhere,
      metric: ZVerdictMetric.describe(
        "Tool calls per second (higher is better); p99 ms, peak RSS bytes and failed requests per 100 (lower is better).",
      ),
      baseline: ZRoundStats,
      candidate: ZRoundStats,
      changePct: z
        .number()
        .describe(
          "(candidate − baseline) ÷ baseline of the rounds' means, in percent; for errorPct the difference in percentage points (1 point is within tolerance).",
        ),
      separation: z
        .enum(["apart", "overlap"])
        .nullable()
        .describe(
          "Whether the two 95 % intervals of the mean are apart; null with a single round on a side.",
        ),
      outcome: z
        .enum(["regressed", "improved", "unchanged", "unclear"])
        .describe(
          "regressed/improved: beyond the tolerance and not overlapping; unchanged: within the tolerance; unclear: " +
            "beyond it but the intervals overlap, or k6 was saturated (throughput only).",
        ),
      note: z.string().nullable(),
    }),
  ),
  failed: z
    .array(
      z.object({
        ...verdictWhere,
        cells: z.number().int(),
        error: z.string().nullable().describe("The first failed cell's reason."),
      }),
    )
    .describe(
      "Server, workload and level with a result in the baseline whose cells failed in this run: a fail.",
    ),
  unmatched: z
    .array(
      z.object({
        ...verdictWhere,
        in: z.enum(["baseline", "candidate"]),
      }),
    )
    .describe("Server, workload and level measured with a result in only one of the runs."),
  environment: comparisonBody.environment.describe(
    "Aspects (machine, k6 build, limits) the two runs' cells did not share: a verdict across machines is weak.",
  ),
});
