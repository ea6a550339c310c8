/**
 * Shareable reports against the real stack: a finished run is frozen behind a permalink, sharing it
 * again alike gives the same permalink, and neither renaming the run nor deleting its cells (or the
 * run) changes what the permalink shows.
 */
import { createApiToken } from "@perflab/db";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { expectConforms, queueRun, testDb, waitForRun } from "./helpers.ts";

type Problem = {
  type: string;
  status: number;
  detail?: string;
  errors?: { field: string; message: string }[];
};
type Snapshot = {
  version: number;
  run: { id: string; name: string; status: string };
  cells: {
    id: string;
    k6Version: string | null;
    hostFingerprint: { cores?: number; cpuModel?: string } | null;
    serverBuild: { language?: string } | null;
    summary: {
      requests: number;
      errors: number;
      opsRps: number;
      httpRps: number;
      latency: { p50: number | null; p99: number | null };
      rssPeakBytes: number | null;
    } | null;
  }[];
  points?: Record<string, { second: number; rps: number; rssBytes: number | null }[]>;
};
type Report = { slug: string; title: string; visibility: string; runId: string; snapshot: Snapshot };

const url = (pathname: string) => `${inject("webUrl")}${pathname}`;

function postReport(body: unknown) {
  return fetch(url("/api/v1/reports"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function expectProblem(response: Response, status: number): Promise<Problem> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
  const problem = (await response.json()) as Problem;
  expect(problem.status).toBe(status);
  return problem;
}

/** A run row with no cells or jobs, in the given state: the worker never touches it. */
async function runInState(status: "queued" | "running") {
  const db = testDb();
  const workspace = await db.workspace.upsert({
    where: { slug: "tests" },
    create: { slug: "tests", name: "Tests" },
    update: {},
  });
  return db.run.create({
    data: { workspaceId: workspace.id, source: "api", name: `still ${status}`, status, spec: {} },
  });
}

const reportCount = () => testDb().report.count();

let runId: string;

beforeAll(async () => {
  ({ runId } = await queueRun([{ serverName: "go", vus: 1, durationSeconds: 2, warmupSeconds: 0 }]));
  const run = await waitForRun(runId, 90_000);
  expect(run.status).toBe("succeeded");
}, 120_000);

describe("reports", () => {
  it("rejects bad bodies with 422 naming the field, and writes nothing", async () => {
    const before = await reportCount();
    const cases: [unknown, string][] = [
      [{}, "runId"],
      [{ runId: 42 }, "runId"],
      [{ runId: "  " }, "runId"],
      [{ runId, title: 5 }, "title"],
      [{ runId, title: "x".repeat(201) }, "title"],
      [{ runId, description: ["no"] }, "description"],
      [{ runId, visibility: "everyone" }, "visibility"],
      [[runId], "(body)"],
    ];
    for (const [body, field] of cases) {
      const problem = await expectProblem(await postReport(body), 422);
      expect(
        problem.errors?.map((e) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    // Only a token holder can open a private report, so making one without a token is refused too
    // (tokens.test.ts makes one with a token).
    const anonymousPrivate = await expectProblem(await postReport({ runId, visibility: "private" }), 401);
    expect(anonymousPrivate.errors?.[0]?.field).toBe("visibility");
    const notJson = await expectProblem(await postReport("{runId:"), 400);
    expect(notJson.errors?.[0]?.field).toBe("(body)");
    expect(await reportCount()).toBe(before);
  });

  it("answers 404 for an unknown run and 409 for one not finished", async () => {
    const before = await reportCount();
    const unknown = await expectProblem(await postReport({ runId: "no-such-run" }), 404);
    expect(unknown.detail).toMatch(/no-such-run/);
    for (const status of ["queued", "running"] as const) {
      const run = await runInState(status);
      const problem = await expectProblem(await postReport({ runId: run.id }), 409);
      expect(problem.detail).toMatch(status);
      expect(problem.errors?.[0]?.field).toBe("runId");
    }
    // Cancelled, but its running cell not yet stopped: the report would freeze it running.
    const workspace = await testDb().workspace.findUniqueOrThrow({ where: { slug: "tests" } });
    const stopping = await testDb().run.create({
      data: {
        workspaceId: workspace.id,
        source: "api",
        name: "cancelled, stopping",
        status: "cancelled",
        spec: {},
        cells: {
          create: [
            {
              index: 0,
              serverName: "go",
              scenario: "mcp-tool-call",
              loadLevel: { vus: 1 },
              durationSeconds: 1,
              driver: "local",
              status: "running",
            },
          ],
        },
      },
    });
    const problem = await expectProblem(await postReport({ runId: stopping.id }), 409);
    expect(problem.detail).toMatch(/cell 0 is still running/);
    expect(await reportCount()).toBe(before);
  });

  it("serves a report frozen by an older perflab in today's shape, and renders it", async () => {
    const created = await postReport({ runId, title: "older" });
    expect(created.status).toBe(201);
    const { slug } = (await created.json()) as { slug: string };
    // What a report made before open-model levels, dropped calls, drift and held sessions kept.
    const db = testDb();
    const stored = await db.report.findUniqueOrThrow({ where: { slug } });
    const snapshot = stored.snapshot as { cells: Record<string, unknown>[] };
    for (const cell of snapshot.cells) {
      for (const key of ["rate", "maxVus", "heldSessions", "rssPerSessionBytes"]) delete cell[key];
      const summary = cell.summary as Record<string, unknown>;
      delete summary.droppedCalls;
      delete summary.drift;
    }
    await db.report.update({ where: { slug }, data: { snapshot: snapshot as never } });

    const response = await fetch(url(`/api/v1/reports/${slug}`));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { snapshot: { cells: Record<string, unknown>[] } };
    // Every field today's cells have is there (the OpenAPI schema requires them), filled in.
    expect(body.snapshot.cells[0]).toMatchObject({
      rate: null,
      maxVus: null,
      heldSessions: 1,
      rssPerSessionBytes: null,
      summary: { droppedCalls: null, drift: null },
    });
    const page = await fetch(url(`/r/${slug}`));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("older");
  });

  it("answers 404 for unknown, malformed and expired slugs, as JSON and as a page", async () => {
    const created = await postReport({ runId, title: "expires" });
    expect(created.status).toBe(201);
    const { slug } = (await created.json()) as { slug: string };
    expect((await fetch(url(`/api/v1/reports/${slug}`))).status).toBe(200);
    await testDb().report.update({ where: { slug }, data: { expiresAt: new Date(Date.now() - 1000) } });

    for (const missing of [slug, "A".repeat(22), "not a slug", "x"]) {
      await expectProblem(await fetch(url(`/api/v1/reports/${encodeURIComponent(missing)}`)), 404);
    }
    const page = await fetch(url(`/r/${slug}`));
    expect(page.status).toBe(404);
    // The app's own not-found page (streamed in the RSC payload, as for an unknown run).
    expect(await page.text()).toContain("Nothing lives at this address.");
  });

  it("answers a second identical share with the first report (200), and a different one with a new report", async () => {
    const before = await reportCount();
    // Two clicks at once: one report, and both hear of it.
    const [first, second] = await Promise.all([
      postReport({ runId, title: "twice" }),
      postReport({ runId, title: "twice" }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    const slug = ((await first.json()) as { slug: string }).slug;
    const again = (await second.json()) as { slug: string; url: string };
    expect(again.slug).toBe(slug);
    expect(again.url).toBe(url(`/r/${slug}`));
    const third = await postReport({ runId, title: "twice" });
    expect(third.status).toBe(200);
    expect(third.headers.get("location")).toBe(url(`/r/${slug}`));
    expect(((await third.json()) as { slug: string }).slug).toBe(slug);
    expect(await reportCount()).toBe(before + 1);

    // Another visibility, title or description is another report.
    const slugs = new Set([slug]);
    for (const body of [
      { runId, title: "twice", visibility: "public" },
      { runId, title: "thrice" },
      { runId, title: "twice", description: "with a note" },
    ]) {
      const response = await postReport(body);
      expect(response.status, JSON.stringify(body)).toBe(201);
      slugs.add(((await response.json()) as { slug: string }).slug);
    }
    expect(slugs.size).toBe(4);

    // An expired report is not handed out again.
    await testDb().report.update({ where: { slug }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const renewed = await postReport({ runId, title: "twice" });
    expect(renewed.status).toBe(201);
    const renewedSlug = ((await renewed.json()) as { slug: string }).slug;
    expect(renewedSlug).not.toBe(slug);

    // A report kept before snapshot hashes were: found by its whole snapshot once, then by its hash.
    const { snapshotSha256 } = await testDb().report.findUniqueOrThrow({ where: { slug: renewedSlug } });
    expect(snapshotSha256).toMatch(/^[0-9a-f]{64}$/);
    await testDb().report.update({ where: { slug: renewedSlug }, data: { snapshotSha256: null } });
    const legacy = await postReport({ runId, title: "twice" });
    expect(legacy.status).toBe(200);
    expect(((await legacy.json()) as { slug: string }).slug).toBe(renewedSlug);
    expect((await testDb().report.findUniqueOrThrow({ where: { slug: renewedSlug } })).snapshotSha256).toBe(
      snapshotSha256,
    );
    // A legacy report of another picture is not taken for this one.
    await testDb().report.update({
      where: { slug: renewedSlug },
      data: { snapshotSha256: null, snapshot: { version: 1, run: {}, cells: [], points: {} } },
    });
    const other = await postReport({ runId, title: "twice" });
    expect(other.status).toBe(201);
    expect(((await other.json()) as { slug: string }).slug).not.toBe(renewedSlug);
  });

  it("makes a new report once the run's cells (the selection) are no longer the ones frozen", async () => {
    const db = testDb();
    const workspace = await db.workspace.findUniqueOrThrow({ where: { slug: "tests" } });
    const cell = (index: number) => ({
      index,
      serverName: "go",
      scenario: "mcp-tool-call",
      loadLevel: { vus: 1 },
      durationSeconds: 1,
      driver: "local" as const,
      status: "failed" as const,
    });
    const run = await db.run.create({
      data: {
        workspaceId: workspace.id,
        source: "api",
        name: "selection",
        status: "failed",
        spec: {},
        cells: { create: [cell(0)] },
      },
    });
    const share = async (status: number) => {
      const response = await postReport({ runId: run.id });
      expect(response.status).toBe(status);
      return ((await response.json()) as { slug: string }).slug;
    };
    const one = await share(201);
    expect(await share(200)).toBe(one);
    await db.cell.create({ data: { runId: run.id, ...cell(1) } });
    const two = await share(201);
    expect(two).not.toBe(one);
    expect(await share(200)).toBe(two);
    const stored = await db.report.findUniqueOrThrow({ where: { slug: two } });
    expect((stored.selection as { cellIds: string[] }).cellIds).toHaveLength(2);
  });

  it("lists a run's reports newest first, unlisted and private ones to their workspace only, and revokes one for good", async () => {
    const made: string[] = [];
    for (const body of [
      { runId, title: "listed unlisted" },
      { runId, title: "listed public", visibility: "public" },
    ]) {
      const response = await postReport(body);
      expect(response.status).toBe(201);
      made.push(((await response.json()) as { slug: string }).slug);
    }
    // A private one, as if shared with a token: an anonymous caller neither lists nor revokes it.
    const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    const hidden = await testDb().report.create({
      data: {
        workspaceId: run.workspaceId,
        slug: "privateReportOfTheListTest",
        title: "listed private",
        visibility: "private",
        selection: { runId, cellIds: [] },
        snapshot: {},
      },
    });

    const listed = await fetch(url(`/api/v1/reports?runId=${runId}`));
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as {
      reports: {
        slug: string;
        url: string;
        title: string;
        visibility: string;
        runId: string;
        runName: string | null;
        cells: number;
      }[];
    };
    await expectConforms(body, "/api/v1/reports", "get", 200, "application/json");
    // Each report names the run it froze, as the run is called now.
    const { name: runName } = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(body.reports.every((r) => r.runName === runName)).toBe(true);
    const slugs = body.reports.map((r) => r.slug);
    // Unlisted reports are found only by those given the link, in an open lab too.
    expect(slugs[0]).toBe(made[1]);
    expect(slugs).not.toContain(made[0]);
    expect(slugs).not.toContain(hidden.slug);
    const member = await createApiToken(testDb(), { workspaceId: run.workspaceId, name: "reports-lister" });
    const mine = (await (
      await fetch(url(`/api/v1/reports?runId=${runId}`), {
        headers: { authorization: `Bearer ${member.secret}` },
      })
    ).json()) as typeof body;
    expect(mine.reports.map((r) => r.slug).slice(0, 3)).toEqual([hidden.slug, made[1], made[0]]);
    await testDb().apiToken.delete({ where: { id: member.token.id } });
    expect(body.reports.every((r) => r.runId === runId && r.visibility !== "private")).toBe(true);
    expect(body.reports[0]).toMatchObject({
      title: "listed public",
      visibility: "public",
      cells: 1,
      url: url(`/r/${made[1]}`),
    });
    // Another run's filter lists none of them; the run page lists them under its reports.
    const other = (await (await fetch(url("/api/v1/reports?runId=no-such-run"))).json()) as { reports: [] };
    expect(other.reports).toEqual([]);
    const page = await (await fetch(url(`/runs/${runId}`))).text();
    expect(page).toContain("Reports of this run");
    expect(page).toContain(`/r/${made[1]}`);
    expect(page).not.toContain(hidden.slug);
    const all = await (await fetch(url("/reports"))).text();
    expect(all).toContain("listed public");
    expect(all).not.toContain("listed private");

    const bad = await expectProblem(await fetch(url("/api/v1/reports?limit=0&runId=%20")), 422);
    expect(bad.errors?.map((e) => e.field).sort()).toEqual(["limit", "runId"]);

    // Revoking: 204, then the permalink, its JSON and CSV are 404s and the list leaves it out.
    const before = await reportCount();
    const gone = await fetch(url(`/api/v1/reports/${made[0]}`), { method: "DELETE" });
    expect(gone.status).toBe(204);
    expect(await reportCount()).toBe(before - 1);
    for (const path of [
      `/api/v1/reports/${made[0]}`,
      `/api/v1/reports/${made[0]}/cells.csv`,
      `/r/${made[0]}`,
    ]) {
      expect((await fetch(url(path))).status, path).toBe(404);
    }
    const again = await expectProblem(
      await fetch(url(`/api/v1/reports/${made[0]}`), { method: "DELETE" }),
      404,
    );
    expect(again.errors?.[0]?.field).toBe("slug");
    const after = (await (await fetch(url(`/api/v1/reports?runId=${runId}`))).json()) as typeof body;
    expect(after.reports.map((r) => r.slug)).not.toContain(made[0]);
    // The private report stays, unrevoked by a caller who cannot open it; another site cannot revoke.
    await expectProblem(await fetch(url(`/api/v1/reports/${hidden.slug}`), { method: "DELETE" }), 404);
    const crossSite = await fetch(url(`/api/v1/reports/${made[1]}`), {
      method: "DELETE",
      headers: { origin: "https://elsewhere.example" },
    });
    expect(crossSite.status).toBe(403);
    expect(await testDb().report.count({ where: { slug: { in: [hidden.slug, made[1]!] } } })).toBe(2);

    // Sharing the same run alike again makes a new permalink: the revoked one stays dead.
    const reshared = await postReport({ runId, title: "listed unlisted" });
    expect(reshared.status).toBe(201);
    expect(((await reshared.json()) as { slug: string }).slug).not.toBe(made[0]);
  });
  it("freezes the run: the report keeps its numbers after the run is renamed, loses its cells and is deleted", async () => {
    const db = testDb();
    const response = await postReport({ runId, description: "go at one VU" });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { slug: string; url: string };
    // 128 random bits in base64url are 22 characters.
    expect(created.slug).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(created.url).toBe(url(`/r/${created.slug}`));
    expect(response.headers.get("location")).toBe(created.url);

    const read = async () => {
      const res = await fetch(url(`/api/v1/reports/${created.slug}`));
      expect(res.status).toBe(200);
      return (await res.json()) as Report;
    };
    const report = await read();
    expect(report).toMatchObject({ slug: created.slug, title: "integration", visibility: "unlisted", runId });

    // The snapshot is the run as the API serves it, plus each cell's server build, less the API
    // token that sent it (which a link passed around has no business naming).
    const live = (await (await fetch(url(`/api/v1/runs/${runId}`))).json()) as {
      run: { token?: unknown };
      cells: Record<string, unknown>[];
    };
    const { token, ...liveRun } = live.run;
    expect(token).toBeNull();
    expect(report.snapshot.run).toEqual(liveRun);
    expect(report.snapshot.cells.map(({ serverBuild: _, ...cell }) => cell)).toEqual(live.cells);

    // Its numbers are the ones stored for the run.
    const [cell] = report.snapshot.cells;
    const stored = await db.cellSummary.findUniqueOrThrow({ where: { cellId: cell!.id } });
    expect(stored.requests).toBeGreaterThan(0n);
    expect(cell!.summary).toMatchObject({
      requests: Number(stored.requests),
      errors: Number(stored.errors),
      opsRps: stored.opsRps,
      httpRps: stored.httpRps,
      latency: { p50: stored.latencyP50Ms, p99: stored.latencyP99Ms },
      rssPeakBytes: stored.rssPeakBytes === null ? null : Number(stored.rssPeakBytes),
    });
    // And the environment it was measured in.
    expect(cell!.k6Version).toMatch(/\d/);
    expect(cell!.hostFingerprint?.cores).toBeGreaterThan(0);
    expect(cell!.serverBuild?.language).toBe("go");
    // And its curves: every second stored for the cell (a short cell stays under the report's cut).
    const seconds = await db.metricPoint.findMany({ where: { cellId: cell!.id }, orderBy: { t: "asc" } });
    expect(seconds.length).toBeGreaterThanOrEqual(2);
    expect(report.snapshot.points?.[cell!.id]?.map((p) => [p.second, p.rps, p.rssBytes])).toEqual(
      seconds.map((p) => [p.second, p.rps, p.rssBytes === null ? null : Number(p.rssBytes)]),
    );

    const page = await fetch(url(`/r/${created.slug}`));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="report-banner"');
    expect(html).toContain('data-testid="summary-table"');
    expect(html).toContain('data-testid="environment-table"');
    expect(html).toMatch(/<meta name="robots" content="noindex, nofollow"/);

    await db.run.update({ where: { id: runId }, data: { name: "renamed later" } });
    await db.cell.deleteMany({ where: { runId } });
    expect(await read()).toEqual(report);

    await db.run.delete({ where: { id: runId } });
    expect(await read()).toEqual(report);
    const after = await (await fetch(url(`/r/${created.slug}`))).text();
    expect(after).toContain('data-testid="summary-row-0"');
    expect(after).not.toContain("renamed later");
    // The run is gone: sharing it again is a 404, the existing report stays, and stays listed (to its
    // workspace: it is unlisted).
    await expectProblem(await postReport({ runId }), 404);
    const { workspaceId } = await db.report.findUniqueOrThrow({ where: { slug: created.slug } });
    const member = await createApiToken(db, { workspaceId, name: "reports-frozen-lister" });
    const listed = (await (
      await fetch(url(`/api/v1/reports?runId=${runId}`), {
        headers: { authorization: `Bearer ${member.secret}` },
      })
    ).json()) as {
      reports: { slug: string }[];
    };
    expect(listed.reports.map((r) => r.slug)).toContain(created.slug);
    await db.apiToken.delete({ where: { id: member.token.id } });
  });
});
