import { createReadStream } from "node:fs";
import { open, readFile } from "node:fs/promises";
import {
  ApiError,
  createRetrying,
  ingested,
  REPORT_TIMEOUT_SEC,
  readRetrying,
  request,
  UPLOAD_SECONDS_PER_MIB,
  UPLOAD_TIMEOUT_SEC,
  verdictOf,
} from "./api.ts";
import { countsFromK6Summary, type ParsedCommand, UsageError } from "./args.ts";
import { EXIT, type Io } from "./io.ts";
import { printVerdict, verdictExit } from "./print.ts";

type Command<C extends ParsedCommand["command"]> = Extract<ParsedCommand, { command: C }>;

/** `perflab upload`: sends a k6 result file (any format the lab reads, plain or gzip), waits for the lab to read it, and judges it against its baseline. */
export async function uploadCommand(io: Io, parsed: Command<"upload">): Promise<number> {
  const { global } = parsed;
  const { size, gzip } = await fileHead(parsed.file).catch((error: Error) => {
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
  // The file streams from disk as it is sent (a day of k6 output is gigabytes), anew for each try;
  // its length lets the lab refuse one over its limit before reading it.
  const send = (): RequestInit & { duplex: "half" } => ({
    method: "POST",
    headers: {
      "content-type": "application/x-ndjson",
      "content-length": String(size),
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    },
    body: ReadableStream.from(createReadStream(parsed.file)) as ReadableStream<Uint8Array>,
    duplex: "half",
    // Fetch otherwise tees a stream body to follow a redirect with it, holding every byte sent.
    redirect: "error",
  });
  const created = await createRetrying<{ runId: string; url: string }>(
    io,
    global,
    `/api/v1/uploads?${query}`,
    send,
    Math.max(global.timeoutSec, UPLOAD_TIMEOUT_SEC, (size / 2 ** 20) * UPLOAD_SECONDS_PER_MIB),
  );
  await ingested(io, global, created.runId);
  const baseline = parsed.query.baselineRunId;
  const verdict = baseline ? await verdictOf(io, global, created.runId, undefined, parsed.tolerance) : null;
  if (global.json) io.out(JSON.stringify(verdict ? { ...created, verdict } : created));
  else {
    io.out(`uploaded run ${created.runId}: ${created.url}`);
    if (verdict) printVerdict(io, verdict);
  }
  return verdict ? verdictExit(verdict) : EXIT.ok;
}

/** A file's size and whether it is gzip, as k6 wrote it (a .gz file too: the lab finds gzip by its magic bytes). */
async function fileHead(file: string): Promise<{ size: number; gzip: boolean }> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return { size, gzip: bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b };
  } finally {
    await handle.close();
  }
}

/** `perflab verdict`: a run judged against its baseline. */
export async function verdictCommand(io: Io, parsed: Command<"verdict">): Promise<number> {
  const verdict = await verdictOf(io, parsed.global, parsed.runId, parsed.baseline, parsed.tolerance);
  if (parsed.global.json) io.out(JSON.stringify(verdict));
  else printVerdict(io, verdict);
  return verdictExit(verdict);
}

/** `perflab export`: a run's or a comparison's data, written as the lab gives it. */
export async function exportCommand(io: Io, parsed: Command<"export">): Promise<number> {
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

/** `perflab report`: shares a run as a permalink report. */
export async function reportCommand(io: Io, parsed: Command<"report">): Promise<number> {
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
