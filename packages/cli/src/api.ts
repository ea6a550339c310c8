import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ZRunDetail, ZVerdict } from "@perflab/contracts";
import type { z } from "zod";
import type { Global } from "./args.ts";
import type { Io } from "./io.ts";

type RunDetail = z.infer<typeof ZRunDetail>;
type Verdict = z.infer<typeof ZVerdict>;

/**
 * An API answer other than the one expected: its problem details, printed field by field.
 * `transient` when asking again may well succeed: the lab was unreachable, did not answer in time,
 * or answered 5xx (a restart, a proxy in front of it, a database failing over).
 */
export class ApiError extends Error {
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
export async function request(
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
    const cause = (error as Error).cause ?? error;
    // A streamed upload is sent with redirect "error": asking again would meet the same redirect.
    if ((cause as Error).message === "unexpected redirect")
      throw new ApiError(
        `perflab at ${global.url} answered ${method} ${path} with a redirect: give --url as the lab's own address`,
      );
    throw new ApiError(`perflab at ${global.url} could not be reached: ${cause}`, true);
  }
}

/** Sent with every request that creates, so asking it again creates nothing more. */
const IDEMPOTENCY_HEADER = "idempotency-key";

/** Seconds an upload may take at least: up to 50 MiB sent and stored for a worker to read. */
export const UPLOAD_TIMEOUT_SEC = 300;
/**
 * Seconds allowed per MiB of a larger upload: a lab on a loaded 2-core machine stored 3 to 7 MiB/s
 * (docs/uploads-and-verdicts.md), so a day of gzipped `--out json` is not cut off midway.
 */
export const UPLOAD_SECONDS_PER_MIB = 1;
/** Seconds a share may take at least: the lab gives each of its two transactions two minutes. */
export const REPORT_TIMEOUT_SEC = 250;

export async function call<T>(
  global: Global,
  path: string,
  init?: RequestInit,
  timeoutSec?: number,
): Promise<T> {
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

/**
 * A stretch of transient failures (the lab unreachable, timing out or answering 5xx): the first is
 * said once on stderr, the lab answering again is said too, and the stretch gives up (rethrows) once
 * it has lasted PERFLAB_RETRY s. `going` is added to the first message, `gaveUp` to the last.
 */
export function labAway(io: Io, global: Global, about: { going?: string; gaveUp?: string } = {}) {
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
 * retried as a read is when the lab is away, times out or answers 5xx. A body that can be sent only
 * once (a file's stream) comes from `init` given as a function, called for each try.
 */
export async function createRetrying<T>(
  io: Io,
  global: Global,
  path: string,
  init: RequestInit | (() => RequestInit),
  timeoutSec?: number,
): Promise<T> {
  const key = randomUUID();
  return readRetrying(io, global, () => {
    const attempt = typeof init === "function" ? init() : init;
    const headers = new Headers(attempt.headers);
    headers.set(IDEMPOTENCY_HEADER, key);
    return call<T>(global, path, { ...attempt, headers }, timeoutSec);
  });
}

/**
 * A read (GET: asking twice changes nothing) that rides out a lab that is away for a moment as the
 * wait's polls do, asking again every 2 s. A CI job whose 20-minute run is done should not fail on
 * its last read because the lab restarted just then.
 */
export async function readRetrying<T>(io: Io, global: Global, read: () => Promise<T>): Promise<T> {
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

export async function verdictOf(
  io: Io,
  global: Global,
  runId: string,
  baseline?: string,
  tolerance?: number,
) {
  const query = new URLSearchParams();
  if (baseline) query.set("baseline", baseline);
  if (tolerance !== undefined) query.set("tolerance", String(tolerance));
  const qs = query.size > 0 ? `?${query}` : "";
  return readRetrying(io, global, () =>
    call<Verdict>(global, `/api/v1/runs/${encodeURIComponent(runId)}/verdict${qs}`),
  );
}

/**
 * Waits while a worker reads an uploaded output into its run: the lab answers the upload at once,
 * and refuses the output (a line or a parameter it contradicts) by failing the run with the reason.
 */
export async function ingested(io: Io, global: Global, runId: string): Promise<void> {
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
