/**
 * The client timeout a matrix sets (`timeoutMs`, the scripts' TIMEOUT_MS): perflab's k6 and its
 * output against a route that answers after the timeout, through the aggregation every cell uses.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ZK6OutputLine } from "@perflab/contracts";
import { CellAggregator } from "@perflab/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/services.ts";

/** A route that answers after `delayMs`, or at once for /fast. */
function slowServer(delayMs: number) {
  return http.createServer((req, res) => {
    if (req.url === "/rest/time") setTimeout(() => res.end('{"now_ms":0}'), delayMs);
    else res.end("{}");
  });
}

async function runHttpRoute(target: string, env: Record<string, string>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "perflab-timeouts-"));
  const out = path.join(dir, "out.ndjson");
  await promisify(execFile)(
    path.join(repoRoot, ".perflab/bin/k6"),
    ["run", "--no-usage-report", "--quiet", "--out", `perflab=${out}`, "packages/scenarios/k6/http-route.js"],
    {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TARGET: target, ...env },
      timeout: 60_000,
    },
  );
  const agg = new CellAggregator({ operationMethod: "GET" });
  for (const raw of (await readFile(out, "utf8")).split("\n").filter(Boolean)) {
    const line = ZK6OutputLine.parse(JSON.parse(raw));
    if (line.type === "interval") agg.addInterval(line);
  }
  return agg.summary({ durationSec: 1 });
}

describe("request timeouts", () => {
  const server = slowServer(1_000);
  let target = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("counts each request cut by a 200 ms timeout as a timeout, not an error: 6 of 6", async () => {
    const s = await runHttpRoute(target, { VUS: "3", ITERATIONS: "6", TIMEOUT_MS: "200" });
    expect(s).toMatchObject({ requests: 6, timeouts: 6, errors: 0 });
    // Each was cut at the timeout, well before the route's second.
    expect(s.latency.maxMs!).toBeLessThan(1_000);
  });

  it("counts no timeout without TIMEOUT_MS (k6's 60 s): the same requests succeed", async () => {
    const s = await runHttpRoute(target, { VUS: "3", ITERATIONS: "3" });
    expect(s).toMatchObject({ requests: 3, timeouts: 0, errors: 0 });
  });
});
