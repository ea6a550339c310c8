/**
 * Regression verdicts and the perflab command, against the real stack: the real k6 with perflab's
 * output loads the Go server twice — sleep(1 ms), then sleep(50 ms), the same tool — and the CLI
 * uploads both, the second judged against the first: a regression, exit code 1. The verdict API
 * answers in its documented shape and refuses what it cannot judge, naming the field.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { RunningServer } from "@perflab/worker/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  expectConforms,
  perflab,
  perflabAt,
  queueRun,
  runK6ToFiles,
  startGoServer,
  testDb,
} from "./helpers.ts";

const url = (pathname: string) => `${inject("webUrl")}${pathname}`;
const DURATION = 3;
let server: RunningServer | null = null;
let dir = "";

/** One k6 run of sleep(ms) at 2 VUs, written as perflab's output and k6's summary. */
const measure = (baseUrl: string, mcpPath: string, name: string, ms: number) =>
  runK6ToFiles(dir, name, {
    TARGET: baseUrl,
    MCP_PATH: mcpPath,
    VUS: "2",
    WARMUP: "0",
    DURATION: String(DURATION),
    TOOL: "sleep",
    ARGS: JSON.stringify({ ms }),
  });

const runIdOf = (stdout: string) => /uploaded run (\S+):/.exec(stdout)?.[1] ?? "";

let fast = { out: "", summary: "" };
let slow = { out: "", summary: "" };

beforeAll(async () => {
  const go = await startGoServer("verdict-test");
  server = go.server;
  const { baseUrl, mcpPath } = go;
  dir = path.join(inject("tmpDir"), "verdict");
  fast = await measure(baseUrl, mcpPath, "fast", 1);
  slow = await measure(baseUrl, mcpPath, "slow", 50);
}, 120_000);

afterAll(async () => {
  await server?.stop(5_000);
});

describe("regression verdicts and the perflab command", () => {
  it("uploads a baseline, then fails a slower upload judged against it, and passes the reverse", async () => {
    const common = ["--server", "go", "--duration", String(DURATION), "--tool", "sleep"];
    const base = await perflab("upload", fast.out, "--summary", fast.summary, ...common);
    expect(base.code, base.stderr).toBe(0);
    const baseId = runIdOf(base.stdout);
    expect(baseId).not.toBe("");

    const cand = await perflab(
      "upload",
      slow.out,
      "--summary",
      slow.summary,
      ...common,
      "--baseline",
      baseId,
    );
    expect(cand.code, cand.stdout + cand.stderr).toBe(1);
    expect(cand.stdout).toMatch(/verdict: FAIL/);
    expect(cand.stdout).toMatch(/go\s+sleep\s+2 VUs\s+opsRps.*regressed/);
    expect(cand.stdout).toMatch(/go\s+sleep\s+2 VUs\s+p99Ms.*regressed/);
    const candId = runIdOf(cand.stdout);

    // The API: the stored baseline by default, in the documented shape.
    const response = await fetch(url(`/api/v1/runs/${candId}/verdict`));
    const verdict = (await response.json()) as {
      outcome: string;
      baselineRunId: string;
      checks: { metric: string; outcome: string; changePct: number; baseline: { n: number } }[];
    };
    expect(response.status, JSON.stringify(verdict)).toBe(200);
    await expectConforms(verdict, "/api/v1/runs/{id}/verdict", "get", 200, "application/json");
    expect(verdict).toMatchObject({ outcome: "fail", baselineRunId: baseId });
    const ops = verdict.checks.find((c) => c.metric === "opsRps")!;
    // 2 VUs sleeping 50 ms call at most 40 times a second; at 1 ms, hundreds.
    expect(ops.changePct).toBeLessThan(-50);
    expect(ops.baseline.n).toBe(1);

    // The other way round it is an improvement: pass, exit 0, in JSON for scripts.
    const reverse = await perflab("verdict", baseId, "--baseline", candId, "--json");
    expect(reverse.code, reverse.stderr).toBe(0);
    expect(JSON.parse(reverse.stdout)).toMatchObject({ outcome: "pass" });
    expect(
      (JSON.parse(reverse.stdout) as typeof verdict).checks.find((c) => c.metric === "opsRps")?.outcome,
    ).toBe("improved");
    // Even a 50 % tolerance fails a p99 that grew from a few ms to over 50 (even on a loaded machine).
    const tolerant = await perflab("verdict", candId, "--tolerance", "50");
    expect(tolerant.stdout).toMatch(/p99Ms.*regressed/);
    expect(tolerant.code).toBe(1);
    // The run page judges at the default tolerance, or at the address's ?tolerance= like the CLI.
    const page = async (query: string) => (await fetch(url(`/runs/${candId}${query}`))).text();
    expect(await page("")).toMatch(/tolerance <!-- -->10<!-- --> %/);
    const at50 = await page("?tolerance=50");
    expect(at50).toMatch(/tolerance <!-- -->50<!-- --> %/);
    expect(at50).toContain('data-outcome="fail"');
    // A tolerance the API would refuse is ignored here: the page falls back to the default.
    expect(await page("?tolerance=-3")).toMatch(/tolerance <!-- -->10<!-- --> %/);

    // Frozen behind a link from the command line.
    const report = await perflab("report", candId, "--title", "slow sleep");
    expect(report.code, report.stderr).toBe(0);
    expect((await fetch(report.stdout.trim())).status).toBe(200);
    // And its cells as CSV, the same bytes the API serves.
    const csv = await perflab("export", candId);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe(await (await fetch(url(`/api/v1/runs/${candId}/cells.csv`))).text());
    expect(csv.stdout.split("\r\n")[1]).toContain(",go,mcp-tool-call,sleep,");
  });

  it("queues and waits for a matrix from the command line; nothing to match is inconclusive, exit 3", async () => {
    const base = await perflab(
      "upload",
      fast.out,
      "--server",
      "go",
      "--duration",
      String(DURATION),
      "--tool",
      "sleep",
    );
    const baseId = runIdOf(base.stdout);
    const result = await perflab(
      "run",
      ...["--server", "go", "--tool", "echo", "--args", '{"message":"hi"}', "--vus", "2"],
      ...["--duration", "2", "--warmup", "0", "--cooldown", "0", "--baseline", baseId],
    );
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stderr).toMatch(/1\/1 cells done \(succeeded\)/);
    expect(result.stdout).toMatch(/run \S+ succeeded/);
    expect(result.stdout).toMatch(/0\s+go\s+2 VUs\s+1\s+succeeded/);
    expect(result.stdout).toMatch(/verdict: INCONCLUSIVE/);
    expect(result.stdout).toMatch(/only in the baseline: go · sleep · 2 VUs/);

    // An upload that names its call (--args) is the same workload as a lab run of that call: matched.
    const named = await perflab(
      ...["upload", fast.out, "--server", "go", "--duration", String(DURATION), "--tool", "sleep"],
      ...["--args", '{"ms":1}'],
    );
    expect(named.code, named.stderr).toBe(0);
    const matched = await perflab(
      ...["run", "--server", "go", "--tool", "sleep", "--args", '{"ms":1}', "--vus", "2", "--json"],
      ...["--duration", "2", "--warmup", "0", "--cooldown", "0", "--baseline", runIdOf(named.stdout)],
    );
    const judged = JSON.parse(matched.stdout) as {
      verdict: { outcome: string; checks: { metric: string }[] };
    };
    // An upload has no server RSS (perflab did not watch the process): the other three are checked.
    expect(judged.verdict.checks.map((c) => c.metric).sort()).toEqual(["errorPct", "opsRps", "p99Ms"]);
    expect(["pass", "fail"]).toContain(judged.verdict.outcome);
    expect(matched.code).toBe(judged.verdict.outcome === "pass" ? 0 : 1);

    // An unknown baseline is refused before anything is queued, naming the field.
    const unknown = await perflab(
      "run",
      "--server",
      "go",
      "--tool",
      "echo",
      "--vus",
      "1",
      "--duration",
      "1",
      "--baseline",
      "nope",
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/baselineRunId: no run has the id "nope"/);
  });

  it("waits through a lab that stops answering for a while: failed polls and reads are asked again", async () => {
    // A proxy in front of the lab that fails the second and third polls of the run, and the first
    // two verdict and export reads: a 503 problem, then a connection dropped before any answer (the
    // web app restarting behind a CI job).
    const target = new URL(inject("webUrl"));
    const seen = { poll: 0, verdict: 0, export: 0 };
    const proxy = http.createServer((incoming, outgoing) => {
      const read =
        incoming.method !== "GET"
          ? null
          : /^\/api\/v1\/runs\/[^/]+$/.test(incoming.url ?? "")
            ? "poll"
            : /\/verdict(\?|$)/.test(incoming.url ?? "")
              ? "verdict"
              : /\/cells\.csv(\?|$)/.test(incoming.url ?? "")
                ? "export"
                : null;
      if (read) {
        const n = ++seen[read];
        // Polls: the 2nd and 3rd fail; reads: the 1st and 2nd.
        const failing = read === "poll" ? n - 1 : n;
        if (failing === 1) {
          outgoing.writeHead(503, { "content-type": "application/problem+json" });
          outgoing.end(JSON.stringify({ status: 503, title: "Service Unavailable", detail: "restarting" }));
          return;
        }
        if (failing === 2) {
          incoming.socket.destroy();
          return;
        }
      }
      const forwarded = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on("error", () => outgoing.destroy());
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const lab = `http://127.0.0.1:${port}`;
      const result = await perflabAt(
        lab,
        ...["run", "--server", "go", "--tool", "echo", "--args", '{"message":"hi"}', "--vus", "1"],
        ...["--duration", "3", "--warmup", "0", "--cooldown", "0"],
      );
      expect(result.code, result.stderr).toBe(0);
      expect(seen.poll).toBeGreaterThanOrEqual(4);
      expect(result.stderr).toMatch(
        /→ 503 restarting; asking again for up to 120 s \(PERFLAB_RETRY; the run goes on\)/,
      );
      expect(result.stderr).toMatch(/perflab: the lab answers again after \d+ s/);
      expect(result.stderr).toMatch(/1\/1 cells done \(succeeded\)/);
      const runId = /run (\S+) succeeded/.exec(result.stdout)?.[1];
      expect(runId, result.stdout).toBeDefined();

      // The reads after the wait: the run judged against an uploaded one, and its cells as CSV.
      const uploaded = await perflab(
        "upload",
        fast.out,
        "--server",
        "go",
        "--duration",
        String(DURATION),
        "--tool",
        "sleep",
      );
      const other = runIdOf(uploaded.stdout);
      expect(other, uploaded.stderr).not.toBe("");
      for (const [command, extra] of [
        ["verdict", ["--baseline", other, "--json"]],
        ["export", []],
      ] as const) {
        const answered = await perflabAt(lab, command, runId!, ...extra);
        expect(seen[command], command).toBe(3);
        expect(answered.stderr, command).toMatch(
          /→ 503 restarting; asking again for up to 120 s \(PERFLAB_RETRY\)\n/,
        );
        expect(answered.stderr, command).toMatch(/perflab: the lab answers again after [2-9] s\n$/);
        if (command === "verdict")
          expect(JSON.parse(answered.stdout)).toMatchObject({ runId, baselineRunId: other });
        else expect(answered.stdout.split("\r\n")[0]).toMatch(/^\uFEFF?run_id,/);
      }
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 120_000);

  it("holds sessions from the command line and prints what each one costs the server", async () => {
    const result = await perflab(
      "run",
      ...["--server", "go", "--tool", "echo", "--vus", "2", "--sessions-per-vu", "20", "--think-ms", "50"],
      ...["--duration", "3", "--warmup", "1", "--cooldown", "0"],
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.find((l) => l.startsWith("#"))).toMatch(
      /p99 ms\s+errors\s+peak RSS\s+sessions\s+RSS\/session\s+flags\s+error/,
    );
    // 2 VUs × 20 sessions held, echo called with its default arguments (no errors); RSS per session
    // in KB (may be negative on a tiny server, never absent). A busy machine may add its flags.
    expect(lines.find((l) => /^0\s+go/.test(l))).toMatch(
      /succeeded\s+[\d,.]+\s+[\d.]+\s+0 %\s+[\d.]+ MB\s+40\s+-?[\d,.]+ KB(\s+(k6-saturated|machine-busy|warming-up|[,\s])+)?$/,
    );
    const runId = /run (\S+) succeeded/.exec(result.stdout)?.[1];
    const detail = (await (await fetch(url(`/api/v1/runs/${runId}`))).json()) as {
      cells: { params: Record<string, unknown>; heldSessions: number; rssPerSessionBytes: number | null }[];
    };
    expect(detail.cells[0]).toMatchObject({
      params: { tool: "echo", arguments: { message: "hello" }, sessionsPerVu: 20, thinkMs: 50 },
      heldSessions: 40,
    });
    expect(detail.cells[0]!.rssPerSessionBytes).not.toBeNull();
  });

  it("refuses what it cannot judge, naming the field", async () => {
    const problem = async (path: string, status: number, field?: string) => {
      const response = await fetch(url(path));
      const body = (await response.json()) as { errors?: { field: string }[] };
      expect(response.status, JSON.stringify(body)).toBe(status);
      await expectConforms(body, "/api/v1/runs/{id}/verdict", "get", status, "application/problem+json");
      if (field) expect(body.errors?.map((e) => e.field)).toContain(field);
    };
    const base = await perflab("upload", fast.out, "--server", "go", "--duration", String(DURATION));
    const baseId = runIdOf(base.stdout);
    await problem(`/api/v1/runs/${baseId}/verdict`, 422, "baseline");
    await problem(`/api/v1/runs/${baseId}/verdict?baseline=${baseId}`, 422, "baseline");
    await problem(`/api/v1/runs/${baseId}/verdict?baseline=nope`, 404, "baseline");
    await problem(`/api/v1/runs/${baseId}/verdict?baseline=${baseId}&tolerance=-1`, 422, "tolerance");
    await problem(`/api/v1/runs/nope/verdict?baseline=${baseId}`, 404);
    // A run still queued has no verdict yet.
    const { runId } = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 1, warmupSeconds: 0 }], {
      enqueue: false,
    });
    await problem(`/api/v1/runs/${runId}/verdict?baseline=${baseId}`, 409);
    await testDb().run.delete({ where: { id: runId } });
  });
});
