/**
 * A bounded property-based fuzz run of the API: schemathesis (pinned, its generation deterministic:
 * the same cases every run) drives every operation of /api/v1/openapi.json with valid and invalid
 * input, each parameter's boundaries and a few random cases per operation. Every answer must be
 * below 500, and every 4xx an application/problem+json naming the field it refuses.
 * The lab under fuzz has its own Postgres and Redis and no worker: the matrices it queues never run.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  freePort,
  repoRoot,
  type Service,
  startPostgres,
  startRedis,
  startWeb,
} from "../../scripts/lib/services.ts";

const run = promisify(execFile);

/** Pinned: another version generates other cases. */
const SCHEMATHESIS = "4.32.5";
const venv = path.join(repoRoot, ".perflab/fuzz");
const st = path.join(venv, "bin/st");

/** Installs the pinned schemathesis into a virtualenv of its own once (PyPI), as servers/python builds. */
async function ensureSchemathesis(): Promise<void> {
  const installed = await run(st, ["--version"]).then(
    (r) => r.stdout,
    () => "",
  );
  if (installed.includes(`version ${SCHEMATHESIS}`)) return;
  await run("python3", ["-m", "venv", venv]);
  const pip = ["install", "--disable-pip-version-check", "--no-input", "-q", `schemathesis==${SCHEMATHESIS}`];
  await run(path.join(venv, "bin/pip"), pip, {
    timeout: 300_000,
  });
}

type HarEntry = {
  request: { method: string; url: string };
  response: { status: number; content: { mimeType?: string; text?: string } };
};

/** What is wrong with one answer, or null: a 5xx, or a 4xx that is not a problem naming a field. */
function fault({ request, response }: HarEntry): string | null {
  const what = `${request.method} ${request.url} → ${response.status}`;
  if (response.status >= 500) return `${what}: ${response.content.text?.slice(0, 300)}`;
  if (response.status < 400 || request.method === "HEAD") return null;
  // An upload's body skips the middleware (so it is never held in memory), and Next.js answers a
  // method it has no handler name for (QUERY) before any code of the lab runs: an empty 400.
  if (request.method === "QUERY" && new URL(request.url).pathname === "/api/v1/uploads") return null;
  if (!response.content.mimeType?.startsWith("application/problem+json"))
    return `${what}: ${response.content.mimeType}, not application/problem+json`;
  let problem: { errors?: { field?: string }[] };
  try {
    problem = JSON.parse(response.content.text ?? "");
  } catch {
    return `${what}: a body that is not JSON`;
  }
  if (!problem.errors?.some((e) => typeof e.field === "string" && e.field.length > 0))
    return `${what}: no field named (${response.content.text?.slice(0, 200)})`;
  return null;
}

const services: Service[] = [];
let webUrl = "";

beforeAll(async () => {
  await ensureSchemathesis();
  const dir = path.join(inject("tmpDir"), "fuzz");
  const redis = await startRedis({ dir: path.join(dir, "redis"), port: await freePort() });
  services.push(redis);
  const pg = await startPostgres({ dir: path.join(dir, "pg"), port: await freePort(), durable: false });
  services.push(pg);
  const web = await startWeb({ databaseUrl: pg.url, redisUrl: redis.url, port: await freePort() });
  services.push(web);
  webUrl = web.url;
}, 420_000);

afterAll(async () => {
  for (const s of services.reverse()) await s.stop().catch(() => undefined);
});

describe("the API under a bounded fuzz run", () => {
  it("answers no 5xx, and every 4xx as a problem naming the field", async () => {
    const har = path.join(inject("tmpDir"), "fuzz", "api.har");
    const args = [
      "run",
      `${webUrl}/api/v1/openapi.json`,
      "--url",
      webUrl,
      "--generation-deterministic",
      // Coverage (each parameter's boundaries and wrong types, ~60 s here) and a few random cases
      // per operation (~45 s): the whole file stays under 3 minutes.
      "--max-examples",
      "3",
      "--phases",
      "coverage,fuzzing",
      "--checks",
      "not_a_server_error",
      "--workers",
      "1",
      "--request-timeout",
      "10",
      "--suppress-health-check",
      "all",
      "--no-color",
      "--report",
      "har",
      "--report-har-path",
      har,
    ];
    // Its own verdict is ours too (a 5xx is a failed check); the HAR file has every answer for the rest.
    const result = await run(st, args, { cwd: path.dirname(har), timeout: 170_000 }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? -1,
        out: `${e.stdout ?? ""}${e.stderr ?? ""}`,
      }),
    );
    const entries = (JSON.parse(await readFile(har, "utf8")) as { log: { entries: HarEntry[] } }).log.entries;
    // Every operation of the document was reached, with more than its examples.
    expect(entries.length, result.out.slice(-2000)).toBeGreaterThan(100);
    const classes = new Map<number, number>();
    for (const e of entries)
      classes.set(
        Math.floor(e.response.status / 100),
        (classes.get(Math.floor(e.response.status / 100)) ?? 0) + 1,
      );
    // The figure docs/security.md quotes: requests made, and answers by class.
    console.info(
      `fuzz: ${entries.length} requests; ${[...classes].map(([c, n]) => `${c}xx ${n}`).join(", ")}`,
    );
    const faults = [...new Set(entries.map(fault).filter((f): f is string => f !== null))];
    expect(faults, faults.join("\n")).toEqual([]);
    expect(result.code, result.out.slice(-4000)).toBe(0);
  }, 240_000);
});
