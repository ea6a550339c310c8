import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type DriverId,
  failedCallsPct,
  studyMatrix,
  type TMatrixSpecInput,
  workersProblem,
  workloadName,
  type ZRunDetail,
  type ZVerdict,
} from "@perflab/contracts";
import type { z } from "zod";
import { countsFromK6Summary, type Global, parseCommand, UsageError, usage } from "./args.ts";
import { matrixEstimate, missingRows, roughDuration, studyListing, studyServers } from "./study.ts";

type RunDetail = z.infer<typeof ZRunDetail>;
type Verdict = z.infer<typeof ZVerdict>;

export const EXIT = { ok: 0, failed: 1, error: 2, inconclusive: 3, interrupted: 130 } as const;

/** Where the command writes: the process's streams, or a test's buffers. */
export type Io = { out: (line: string) => void; err: (line: string) => void; raw?: (text: string) => void };
const processIo: Io = {
  raw: (text) => process.stdout.write(text),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * An API answer other than the one expected: its problem details, printed field by field.
 * `transient` when asking again may well succeed: the lab was unreachable, did not answer in time,
 * or answered 5xx (a restart, a proxy in front of it, a database failing over).
 */
class ApiError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

/** The request's headers with the token, when the command has one. */
function withToken(global: Global, init: RequestInit = {}): RequestInit {
  if (!global.token) return init;
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${global.token}`);
  return { ...init, headers };
}

/**
 * A request to the lab that gives up after `timeoutSec` (a lab that accepts the connection and never
 * answers would otherwise hold a CI job for minutes per request), with an error naming the lab.
 */
async function request(
  global: Global,
  path: string,
  init: RequestInit = {},
  timeoutSec = global.timeoutSec,
): Promise<{ response: Response; text: string }> {
  const method = init.method ?? "GET";
  try {
    const response = await fetch(`${global.url}${path}`, {
      ...withToken(global, init),
      signal: init.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutSec * 1000)])
        : AbortSignal.timeout(timeoutSec * 1000),
    });
    return { response, text: await response.text() };
  } catch (error) {
    if ((error as Error).name === "TimeoutError")
      throw new ApiError(
        `perflab at ${global.url} did not answer ${method} ${path} within ${timeoutSec} s (PERFLAB_TIMEOUT)`,
        true,
      );
    throw new ApiError(
      `perflab at ${global.url} could not be reached: ${(error as Error).cause ?? error}`,
      true,
    );
  }
}

/** Sent with every request that creates, so asking it again creates nothing more. */
const IDEMPOTENCY_HEADER = "idempotency-key";

/** Seconds an upload may take at least: up to 50 MiB sent and stored for a worker to read. */
const UPLOAD_TIMEOUT_SEC = 300;
/** Seconds a share may take at least: the lab gives each of its two transactions two minutes. */
const REPORT_TIMEOUT_SEC = 250;

async function call<T>(global: Global, path: string, init?: RequestInit, timeoutSec?: number): Promise<T> {
  const { response, text } = await request(global, path, init, timeoutSec);
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Reported below with the status.
  }
  if (!response.ok) {
    const problem = body as {
      title?: string;
      detail?: string;
      errors?: { field: string; message: string }[];
    } | null;
    const fields = (problem?.errors ?? []).map((e) => `\n  ${e.field}: ${e.message}`).join("");
    // A 409 naming the key: the first try of this request is still being answered; asking again gets its answer.
    const inFlight =
      response.status === 409 && (problem?.errors ?? []).some((e) => e.field === IDEMPOTENCY_HEADER);
    throw new ApiError(
      `${init?.method ?? "GET"} ${path} → ${response.status} ${problem?.detail ?? problem?.title ?? text.slice(0, 200)}${fields}`,
      response.status >= 500 || inFlight,
    );
  }
  if (body === null) throw new ApiError(`${path} answered ${response.status} without JSON`, true);
  return body as T;
}

const fmt = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined
    ? "—"
    : value.toLocaleString("en-US", { maximumFractionDigits: digits });
const mb = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? "—" : `${fmt(bytes / 2 ** 20, 1)} MB`;
const kb = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? "—" : `${fmt(bytes / 1024, 1)} KB`;
/** The share of the measured calls that failed: a run of tool errors must not read as a result. */
const errorShare = (s: { requests: number; errors: number; ops: number } | null | undefined) => {
  const pct = s ? failedCallsPct(s) : null;
  return pct === null ? "—" : `${fmt(pct, s!.errors === 0 ? 0 : 1)} %`;
};
const level = (l: { vus: number | null; rate: number | null }) =>
  l.rate !== null ? `${l.rate} calls/s` : l.vus !== null ? `${l.vus} VUs` : "—";

/** Rows of text in aligned columns. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}

/**
 * What makes a cell's numbers less than the server's own: k6 set the throughput, other work on the
 * machine competed with the server and k6, or the server was still warming up (the run page's badges).
 */
function flags(c: RunDetail["cells"][number]): string {
  return [
    c.k6Saturated ? "k6-saturated" : "",
    c.machineBusy ? "machine-busy" : "",
    c.warmingUp ? "warming-up" : "",
  ]
    .filter(Boolean)
    .join(",");
}

function printRun(io: Io, global: Global, detail: RunDetail): void {
  io.out(`run ${detail.run.id} ${detail.run.status}: ${global.url}/runs/${detail.run.id}`);
  // Cells that held sessions open (--sessions-per-vu, --think-ms) also say what each session cost.
  const held = detail.cells.some(
    (c) => c.params.sessionsPerVu !== undefined || c.params.thinkMs !== undefined,
  );
  // A run of several workloads (a study, a payload sweep) says which each cell ran.
  const workloads = new Set(detail.cells.map((c) => workloadName(c))).size > 1;
  const rows = [
    [
      "#",
      "server",
      ...(workloads ? ["workload"] : []),
      "load",
      "round",
      "status",
      "ops/s",
      "p99 ms",
      "errors",
      "peak RSS",
      ...(held ? ["sessions", "RSS/session"] : []),
      "flags",
      "error",
    ],
  ];
  for (const c of detail.cells) {
    const s = c.summary;
    rows.push([
      String(c.index),
      c.serverName,
      ...(workloads ? [workloadName(c)] : []),
      level({ vus: c.vus, rate: c.rate ?? null }),
      String(c.round),
      c.status,
      fmt(s?.opsRps, 1),
      fmt(s?.latency.p99, 2),
      errorShare(s),
      mb(s?.rssPeakBytes),
      ...(held ? [fmt(c.heldSessions), kb(c.rssPerSessionBytes)] : []),
      flags(c),
      c.error ?? "",
    ]);
  }
  for (const line of table(rows)) io.out(line);
}

function printVerdict(io: Io, verdict: Verdict): void {
  io.out(
    `verdict: ${verdict.outcome.toUpperCase()} — run ${verdict.runId} against baseline ${verdict.baselineRunId}, tolerance ${verdict.tolerancePct} %`,
  );
  const what = (c: { params: Record<string, unknown>; scenario: string }) =>
    typeof c.params.tool === "string"
      ? c.params.tool
      : typeof c.params.route === "string"
        ? c.params.route
        : c.scenario;
  const rows = [["server", "workload", "load", "metric", "baseline", "candidate", "change", "outcome"]];
  const show = (metric: string, v: number) =>
    metric === "rssPeakBytes"
      ? mb(v)
      : metric === "p99Ms"
        ? `${fmt(v, 2)} ms`
        : metric === "errorPct"
          ? `${v.toFixed(2)} %`
          : fmt(v, 1);
  for (const c of verdict.checks) {
    rows.push([
      c.server,
      what(c),
      level(c),
      c.metric,
      `${show(c.metric, c.baseline.mean)}${c.baseline.n > 1 ? ` (n=${c.baseline.n})` : ""}`,
      `${show(c.metric, c.candidate.mean)}${c.candidate.n > 1 ? ` (n=${c.candidate.n})` : ""}`,
      `${c.changePct >= 0 ? "+" : ""}${c.changePct.toFixed(1)} ${c.metric === "errorPct" ? "pts" : "%"}`,
      `${c.outcome}${c.note ? ` (${c.note})` : ""}`,
    ]);
  }
  if (verdict.checks.length > 0) for (const line of table(rows)) io.out(line);
  for (const f of verdict.failed) {
    io.out(
      `failed here, measured in the baseline: ${f.server} · ${what(f)} · ${level(f)} (${f.cells} cell${f.cells === 1 ? "" : "s"}${f.error ? `: ${f.error}` : ""})`,
    );
  }
  for (const u of verdict.unmatched) io.out(`only in the ${u.in}: ${u.server} · ${what(u)} · ${level(u)}`);
  for (const e of verdict.environment) {
    io.out(`warning: the runs differ in ${e.aspect}: ${e.variants.map((v) => v.label).join(" | ")}`);
  }
}

const verdictExit = (verdict: Verdict) =>
  verdict.outcome === "pass" ? EXIT.ok : verdict.outcome === "fail" ? EXIT.failed : EXIT.inconclusive;

/**
 * A stretch of transient failures (the lab unreachable, timing out or answering 5xx): the first is
 * said once on stderr, the lab answering again is said too, and the stretch gives up (rethrows) once
 * it has lasted PERFLAB_RETRY s. `going` is added to the first message, `gaveUp` to the last.
 */
function labAway(io: Io, global: Global, about: { going?: string; gaveUp?: string } = {}) {
  let since: number | null = null;
  return {
    /** Rethrows what is not transient, and a transient failure once the lab was away too long. */
    failed(error: unknown): void {
      if (!(error instanceof ApiError) || !error.transient) throw error;
      const now = Date.now();
      if (since === null) {
        since = now;
        if (global.retrySec > 0)
          io.err(
            `perflab: ${error.message}; asking again for up to ${global.retrySec} s (PERFLAB_RETRY${about.going ?? ""})`,
          );
      }
      if (now - since < global.retrySec * 1000) return;
      if (global.retrySec === 0 && !about.gaveUp) throw error;
      throw new ApiError(
        `${error.message}\n  the lab did not answer for ${Math.round((now - since) / 1000)} s${about.gaveUp ?? ""}`,
      );
    },
    answered(): void {
      if (since !== null)
        io.err(`perflab: the lab answers again after ${Math.round((Date.now() - since) / 1000)} s`);
      since = null;
    },
  };
}

/**
 * A request that creates (queues, uploads, shares), sent with one Idempotency-Key however often it
 * is asked again: the lab answers a repeat with the first answer and creates nothing, so it is
 * retried as a read is when the lab is away, times out or answers 5xx.
 */
async function createRetrying<T>(
  io: Io,
  global: Global,
  path: string,
  init: RequestInit,
  timeoutSec?: number,
): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set(IDEMPOTENCY_HEADER, randomUUID());
  return readRetrying(io, global, () => call<T>(global, path, { ...init, headers }, timeoutSec));
}

/**
 * A read (GET: asking twice changes nothing) that rides out a lab that is away for a moment as the
 * wait's polls do, asking again every 2 s. A CI job whose 20-minute run is done should not fail on
 * its last read because the lab restarted just then.
 */
async function readRetrying<T>(io: Io, global: Global, read: () => Promise<T>): Promise<T> {
  const away = labAway(io, global);
  for (;;) {
    try {
      const value = await read();
      away.answered();
      return value;
    } catch (error) {
      away.failed(error);
      await sleep(2_000);
    }
  }
}

async function verdictOf(io: Io, global: Global, runId: string, baseline?: string, tolerance?: number) {
  const query = new URLSearchParams();
  if (baseline) query.set("baseline", baseline);
  if (tolerance !== undefined) query.set("tolerance", String(tolerance));
  const qs = query.size > 0 ? `?${query}` : "";
  return readRetrying(io, global, () =>
    call<Verdict>(global, `/api/v1/runs/${encodeURIComponent(runId)}/verdict${qs}`),
  );
}

const unfinished = new Set(["queued", "running"]);

/**
 * Waits while a worker reads an uploaded output into its run: the lab answers the upload at once,
 * and refuses the output (a line or a parameter it contradicts) by failing the run with the reason.
 */
async function ingested(io: Io, global: Global, runId: string): Promise<void> {
  for (;;) {
    const { run } = await readRetrying(io, global, () =>
      call<RunDetail>(global, `/api/v1/runs/${encodeURIComponent(runId)}`),
    );
    if (run.status === "succeeded") return;
    if (run.status !== "ingesting") {
      throw new ApiError(`the lab refused the k6 output of run ${runId}: ${run.error ?? run.status}`);
    }
    await sleep(1_000);
  }
}

/**
 * Queues a matrix and, unless told not to wait, follows it to the end and prints its cells (and the
 * verdict against its baseline): what `run` and `study` do once they have the spec.
 */
/**
 * Says on stderr what would keep a run from running as asked: no worker on the lab (it would wait
 * in the queue, and a CI job with it), or docker chosen where no worker reaches an engine. A lab
 * that does not list its workers says nothing.
 */
async function warnAboutWorkers(io: Io, global: Global, spec: Record<string, unknown>): Promise<void> {
  type Listed = { workers: { docker: { reachable: boolean; error: string | null } }[] };
  let workers: Listed["workers"];
  try {
    workers = (await call<Listed>(global, "/api/v1/workers")).workers;
  } catch {
    return;
  }
  const problem = workersProblem(workers, spec.driver as string | undefined);
  if (problem?.kind === "no-worker") {
    io.err("no worker is running on this lab: the run waits in the queue until one starts");
  } else if (problem?.kind === "no-engine") {
    const why = problem.reason;
    io.err(`no running worker reaches a Docker engine${why ? ` (${why})` : ""}: docker cells would fail`);
  }
}

async function queueAndWait(
  io: Io,
  global: Global,
  spec: Record<string, unknown>,
  options: { wait: boolean; tolerance?: number },
): Promise<number> {
  await warnAboutWorkers(io, global, spec);
  const created = await createRetrying<{ runId: string }>(io, global, "/api/v1/matrices", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(spec),
  });
  if (!options.wait) {
    io.out(global.json ? JSON.stringify(created) : created.runId);
    return EXIT.ok;
  }
  if (!global.json) io.err(`queued run ${created.runId}: ${global.url}/runs/${created.runId}`);
  // Ctrl-C (or a CI job's cancel, SIGINT then SIGTERM) stops the waiting, not the run: say which run
  // goes on and how to cancel it, even with --json, whose output never named it.
  const stopped = new AbortController();
  const onSignal = () => stopped.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const interrupted = new Promise<null>((resolve) =>
    stopped.signal.addEventListener("abort", () => resolve(null), { once: true }),
  );
  let detail: RunDetail;
  let progress = "";
  const runUrl = `${global.url}/runs/${created.runId}`;
  const away = labAway(io, global, {
    going: "; the run goes on",
    gaveUp: ` while the run was waited for; run ${created.runId} may go on at ${runUrl}`,
  });
  const pause = () =>
    Promise.race([sleep(2_000, undefined, { signal: stopped.signal }).catch(() => {}), interrupted]);
  try {
    for (;;) {
      // Stopped while sleeping: no request with the aborted signal.
      let polled: RunDetail | null;
      try {
        polled = stopped.signal.aborted
          ? null
          : await Promise.race([
              call<RunDetail>(global, `/api/v1/runs/${created.runId}`, { signal: stopped.signal }),
              interrupted,
            ]);
      } catch (error) {
        if (stopped.signal.aborted) throw error;
        away.failed(error);
        await pause();
        continue;
      }
      if (polled !== null) away.answered();
      if (polled === null) {
        io.err(
          `perflab: stopped waiting; run ${created.runId} goes on at ${global.url}/runs/${created.runId} (cancel it there, or POST /api/v1/runs/${created.runId}/cancel)`,
        );
        return EXIT.interrupted;
      }
      detail = polled;
      const now = `${detail.run.cellsDone}/${detail.run.cellsTotal} cells done (${detail.run.status})`;
      if (now !== progress && !global.json) io.err(now);
      progress = now;
      if (!unfinished.has(detail.run.status)) break;
      await pause();
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const baseline = spec.baselineRunId as string | undefined;
  const verdict = baseline ? await verdictOf(io, global, created.runId, undefined, options.tolerance) : null;
  if (global.json) io.out(JSON.stringify(verdict ? { ...detail, verdict } : detail));
  else {
    printRun(io, global, detail);
    if (verdict) printVerdict(io, verdict);
  }
  if (detail.run.status !== "succeeded") return EXIT.failed;
  return verdict ? verdictExit(verdict) : EXIT.ok;
}

/** The studies, grouped by the publication they reproduce, with each variant's cells and time. */
function printStudies(io: Io, global: Global): void {
  const listing = studyListing();
  if (global.json) {
    io.out(JSON.stringify({ studies: listing }));
    return;
  }
  const variant = (v: { cells: number; seconds: number }) =>
    `${v.cells} cell${v.cells === 1 ? "" : "s"}, ~${roughDuration(v.seconds)}`;
  const rows = [
    ["study", "published", "quick", "title"],
    ...listing.map((s) => [s.id, variant(s.variants.published), variant(s.variants.quick), s.title]),
  ];
  const lines = table(rows);
  io.out(`  ${lines[0]}`);
  const sources = [...new Set(listing.map((s) => s.source))];
  for (const source of sources) {
    const group = listing.filter((s) => s.source === source);
    const servers = [...new Set(group.flatMap((s) => s.servers))];
    io.out(`${source} · ${servers.join(", ")}`);
    for (const s of group) io.out(`  ${lines[listing.indexOf(s) + 1]}`);
  }
  io.out("");
  io.out("cells and time with all of a study's servers (a lab lacking some queues fewer): warm-up,");
  io.out("measured seconds and cool-down of each cell, and about 3 s to start and stop its server.");
  io.out("perflab study <id> [--quick] queues one; perflab help study for its options");
}

/** Runs one command line; resolves to the process's exit code. */
export async function run(argv: string[], io: Io = processIo, env = process.env): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`perflab: ${error.message}`);
    io.err(usage.main);
    return EXIT.error;
  }
  try {
    switch (parsed.command) {
      case "help":
        io.out(usage[parsed.topic ?? "main"]);
        return EXIT.ok;
      case "run":
        return await queueAndWait(io, parsed.global, parsed.spec, parsed);
      case "study": {
        const { global, study } = parsed;
        if (study === null) {
          printStudies(io, global);
          return EXIT.ok;
        }
        const lab = await call<{ servers: { name: string }[]; defaultDriver?: DriverId }>(
          global,
          "/api/v1/servers",
        );
        // The quick variants run on the lab's default driver, as its Studies page queues them (a
        // compose lab's containers: its app image has no JDK or Python to run those servers locally).
        const { spec, missing } = studyMatrix(
          study,
          parsed.variant,
          lab.servers.map((s) => s.name),
          lab.defaultDriver,
        );
        if (spec.servers.length === 0)
          throw new UsageError(
            `the lab has none of ${study.id}'s servers (${studyServers(study).join(", ")})`,
          );
        if (missing.length > 0) io.err(missingRows(study.id, missing));
        let servers = spec.servers;
        if (parsed.servers) {
          const chosen = parsed.servers;
          const other = chosen.filter((s) => !servers.includes(s));
          if (other.length > 0)
            throw new UsageError(
              `--server ${other.join(", ")}: not among ${study.id}'s servers that this lab has (${servers.join(", ")})`,
            );
          servers = servers.filter((s) => chosen.includes(s));
        }
        const driver = parsed.driver ?? spec.driver ?? "local";
        // Only the docker driver applies limits: a local run that kept them would record a request
        // nothing enforced in its spec.
        const { limits, ...rest } = spec;
        if (limits && driver === "local")
          io.err(
            `${study.id} runs its servers in containers with limits as published; --driver local leaves them out`,
          );
        const queued: TMatrixSpecInput = {
          ...rest,
          servers,
          driver,
          ...(limits && driver !== "local" ? { limits } : {}),
          ...(parsed.name !== undefined ? { name: parsed.name } : {}),
          ...(parsed.baseline !== undefined ? { baselineRunId: parsed.baseline } : {}),
        };
        if (!global.json) {
          const { cells, seconds } = matrixEstimate(queued);
          io.err(
            `${study.id}${parsed.variant === "quick" ? " --quick" : ""}: ${servers.join(", ")} · ${cells} cell${cells === 1 ? "" : "s"}, about ${roughDuration(seconds)}`,
          );
        }
        return await queueAndWait(io, global, queued, parsed);
      }
      case "upload": {
        const { global } = parsed;
        const body = await readFile(parsed.file, "utf8").catch((error: Error) => {
          throw new UsageError(`the k6 output ${parsed.file} could not be read: ${error.message}`);
        });
        let counts: ReturnType<typeof countsFromK6Summary> = {};
        if (parsed.summaryFile) {
          try {
            counts = countsFromK6Summary(JSON.parse(await readFile(parsed.summaryFile, "utf8")));
          } catch (error) {
            throw new UsageError(
              `the k6 summary ${parsed.summaryFile} could not be read: ${(error as Error).message}`,
            );
          }
        }
        // Dropped calls belong to an open-model upload only; a closed script's zero is not sent. The
        // server keeps the output's own per-second count when it has one (measured window only).
        const query = new URLSearchParams({
          ...parsed.query,
          ...(counts.k6Requests ? { k6Requests: counts.k6Requests } : {}),
          ...(counts.droppedCalls && parsed.query.rate ? { droppedCalls: counts.droppedCalls } : {}),
        });
        const created = await createRetrying<{ runId: string; url: string }>(
          io,
          global,
          `/api/v1/uploads?${query}`,
          { method: "POST", headers: { "content-type": "application/x-ndjson" }, body },
          Math.max(global.timeoutSec, UPLOAD_TIMEOUT_SEC),
        );
        await ingested(io, global, created.runId);
        const baseline = parsed.query.baselineRunId;
        const verdict = baseline
          ? await verdictOf(io, global, created.runId, undefined, parsed.tolerance)
          : null;
        if (global.json) io.out(JSON.stringify(verdict ? { ...created, verdict } : created));
        else {
          io.out(`uploaded run ${created.runId}: ${created.url}`);
          if (verdict) printVerdict(io, verdict);
        }
        return verdict ? verdictExit(verdict) : EXIT.ok;
      }
      case "verdict": {
        const verdict = await verdictOf(io, parsed.global, parsed.runId, parsed.baseline, parsed.tolerance);
        if (parsed.global.json) io.out(JSON.stringify(verdict));
        else printVerdict(io, verdict);
        return verdictExit(verdict);
      }
      case "export": {
        const text = await readRetrying(io, parsed.global, async () => {
          const { response, text } = await request(parsed.global, parsed.path);
          if (!response.ok) {
            let problem: { detail?: string } | null = null;
            try {
              problem = JSON.parse(text) as { detail?: string };
            } catch {
              // Said with the status alone.
            }
            throw new ApiError(
              `GET ${parsed.path} → ${response.status} ${problem?.detail ?? ""}`.trimEnd(),
              response.status >= 500,
            );
          }
          return text;
        });
        if (io.raw) io.raw(text);
        else io.out(text);
        return EXIT.ok;
      }
      case "report": {
        const created = await createRetrying<{ slug: string; url: string }>(
          io,
          parsed.global,
          "/api/v1/reports",
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(parsed.body),
          },
          Math.max(parsed.global.timeoutSec, REPORT_TIMEOUT_SEC),
        );
        io.out(parsed.global.json ? JSON.stringify(created) : created.url);
        return EXIT.ok;
      }
    }
  } catch (error) {
    if (error instanceof ApiError || error instanceof UsageError) {
      io.err(`perflab: ${error.message}`);
      return EXIT.error;
    }
    throw error;
  }
}
