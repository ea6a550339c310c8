/**
 * A running lab's API as the evidence scripts read it: a run and its cells, waiting for its end, the
 * stored points of its cells, and queueing a matrix. `--url <lab>` or PERFLAB_URL (default the quick
 * start's http://127.0.0.1:3000); PERFLAB_TOKEN when the lab is private.
 */
import type { TMatrixSpecInput, TPoint } from "@perflab/contracts";
import type { CellDto, RunDto } from "@perflab/web/testing";

const args = process.argv.slice(2);
const urlAt = args.indexOf("--url");
export const labUrl = urlAt >= 0 ? args[urlAt + 1]! : (process.env.PERFLAB_URL ?? "http://127.0.0.1:3000");
/** The script's arguments without `--url <lab>`. */
export const positionals = args.filter((a, i) => a !== "--url" && args[i - 1] !== "--url");

const headers = (): Record<string, string> =>
  process.env.PERFLAB_TOKEN ? { authorization: `Bearer ${process.env.PERFLAB_TOKEN}` } : {};

export type RunDetail = { run: RunDto; cells: CellDto[] };

export async function getRun(runId: string): Promise<RunDetail> {
  const res = await fetch(`${labUrl}/api/v1/runs/${runId}`, { headers: headers() });
  if (!res.ok) throw new Error(`GET run ${runId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as RunDetail;
}

const TERMINAL = new Set(["succeeded", "failed", "partial", "cancelled"]);

/** Polls the run every 15 s until it has ended. */
export async function waitForEnd(runId: string): Promise<RunDetail> {
  for (;;) {
    const got = await getRun(runId);
    if (TERMINAL.has(got.run.status)) return got;
    await new Promise((r) => setTimeout(r, 15_000));
  }
}

/** The stored points of every cell of the run, from the first (snapshot) event of its event stream. */
export async function runPoints(runId: string): Promise<Record<string, TPoint[]>> {
  const res = await fetch(`${labUrl}/api/v1/runs/${runId}/events`, { headers: headers() });
  if (!res.ok || !res.body) throw new Error(`GET events of ${runId}: ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    text += decoder.decode(read.value, { stream: true });
    // Events end with a blank line; the stream opens with a `retry:` block that carries no data.
    for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
      const data = text
        .slice(0, end)
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim());
      text = text.slice(end + 2);
      if (data.length === 0) continue;
      await reader.cancel();
      return (JSON.parse(data.join("\n")) as { points: Record<string, TPoint[]> }).points;
    }
  }
  throw new Error(`the event stream of ${runId} ended before its snapshot`);
}

/** Queues a matrix (POST /api/v1/matrices) and returns its run id. */
export async function queueMatrix(spec: TMatrixSpecInput): Promise<string> {
  const res = await fetch(`${labUrl}/api/v1/matrices`, {
    method: "POST",
    headers: { ...headers(), "content-type": "application/json" },
    body: JSON.stringify(spec),
  });
  if (!res.ok) throw new Error(`POST matrices: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { runId: string }).runId;
}

/** "50 VUs", "200/s": a cell's load level. */
export const levelOf = (c: Pick<CellDto, "vus" | "rate">) =>
  c.rate !== null ? `${c.rate}/s` : `${c.vus} VUs`;

/** A number for a Markdown table: "–" when absent. */
export const num = (v: number | null | undefined, digits = 0) =>
  v === null || v === undefined || !Number.isFinite(v)
    ? "–"
    : v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export const mb = (bytes: number | null | undefined, digits = 1) =>
  num(bytes === null || bytes === undefined ? null : bytes / 2 ** 20, digits);
