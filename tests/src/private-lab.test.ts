/**
 * A lab whose results are private (PERFLAB_ACCESS=private) against the real stack: every read of
 * the API is a 401 naming authorization without a token and answers with one; a token reads its
 * own workspace only (another's runs are 404s and left out of lists); report permalinks that are
 * public or unlisted stay open, private ones do not; the pages send a visitor without a sign-in
 * (or with a lapsed one) to the sign-in form and back.
 */
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { createApiToken } from "@perflab/db";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot, type Service } from "../../scripts/lib/services.ts";
import { echoUploadOf, startPrivateLab, testDb, tokenInDb } from "./helpers.ts";
import { ingested } from "./ingest-helpers.ts";

type Problem = { status: number; detail?: string; errors?: { field: string; message: string }[] };
type OpenApiDoc = { paths: Record<string, Record<string, unknown>> };

const started: Service[] = [];
let lab = "";
const unique = randomBytes(4).toString("hex");
/** A member token of the lab's default workspace, and one of a second workspace. */
let mine = { secret: "", id: "" };
let theirs = { secret: "", id: "" };
let otherWorkspaceId = "";
/** Two finished runs of the default workspace (the second judged against the first), one of the other. */
let runA = "";
let runA2 = "";
let runB = "";
const reports = { public: "", unlisted: "", private: "", theirsPublic: "" };
const tokenIds: string[] = [];

async function request(pathname: string, init: RequestInit & { token?: string; cookie?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  if (init.cookie) headers.set("cookie", `perflab_token=${encodeURIComponent(init.cookie)}`);
  // A live stream never ends by itself: its status and headers are all that is read of it.
  const stream = pathname.endsWith("/events") && (init.method ?? "GET") === "GET";
  const abort = new AbortController();
  const response = await fetch(`${lab}${pathname}`, {
    ...init,
    headers,
    redirect: "manual",
    signal: abort.signal,
  });
  let text = "";
  if (stream && response.ok) abort.abort();
  else text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // A page, a CSV or an empty body: the status says enough.
  }
  return { status: response.status, headers: response.headers, body, text };
}

async function upload(ndjson: string, token: string, name: string): Promise<string> {
  const query = new URLSearchParams({ server: "go", warmupSec: "0", durationSec: "2", tool: "echo", name });
  const response = await request(`/api/v1/uploads?${query}`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: ndjson,
    token,
  });
  expect(response.status, response.text).toBe(202);
  const runId = response.body.runId as string;
  expect(await ingested(runId)).toMatchObject({ status: "succeeded" });
  return runId;
}

async function share(runId: string, visibility: string, token: string): Promise<string> {
  const response = await request("/api/v1/reports", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ runId, visibility, title: `private lab ${visibility} ${unique}` }),
    token,
  });
  expect(response.status, response.text).toBe(201);
  return response.body.slug as string;
}

/** Where a redirect leads, as a path and query of the lab. */
function locationOf(response: Awaited<ReturnType<typeof request>>): string {
  const location = new URL(response.headers.get("location") ?? "", lab);
  expect(location.origin).toBe(new URL(lab).origin);
  return `${location.pathname}${location.search}`;
}

function expectNeedsToken(response: Awaited<ReturnType<typeof request>>, what: string) {
  expect(response.status, what).toBe(401);
  expect(response.headers.get("content-type"), what).toMatch(/^application\/problem\+json/);
  expect(response.headers.get("www-authenticate"), what).toMatch(/^Bearer/);
  if (what.startsWith("HEAD")) return;
  const problem = response.body as Problem;
  expect(problem.errors?.[0], what).toMatchObject({
    field: "authorization",
    message: expect.stringMatching(/private: send Authorization: Bearer <token>, or sign in/),
  });
}

beforeAll(async () => {
  const web = await startPrivateLab();
  started.push(web);
  lab = web.url;
  const db = testDb();
  const own = await tokenInDb(`private-mine-${unique}`);
  mine = { secret: own.secret, id: own.token.id };
  const workspace = await db.workspace.create({
    data: { slug: `private-${unique}`, name: `Private ${unique}` },
  });
  otherWorkspaceId = workspace.id;
  const other = await createApiToken(db, { workspaceId: workspace.id, name: `private-theirs-${unique}` });
  theirs = { secret: other.secret, id: other.token.id };
  tokenIds.push(mine.id, theirs.id);

  const ndjson = await echoUploadOf("private-lab");
  runA = await upload(ndjson, mine.secret, `private-a-${unique}`);
  runA2 = await upload(ndjson, mine.secret, `private-a2-${unique}`);
  runB = await upload(ndjson, theirs.secret, `private-b-${unique}`);
  reports.public = await share(runA, "public", mine.secret);
  reports.unlisted = await share(runA, "unlisted", mine.secret);
  reports.private = await share(runA, "private", mine.secret);
  reports.theirsPublic = await share(runB, "public", theirs.secret);
}, 180_000);

afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  const db = testDb();
  await db.report.deleteMany({ where: { slug: { in: Object.values(reports).filter(Boolean) } } });
  await db.run.deleteMany({ where: { id: { in: [runA, runA2, runB].filter(Boolean) } } });
  await db.apiToken.deleteMany({ where: { id: { in: tokenIds } } });
  if (otherWorkspaceId) await db.workspace.delete({ where: { id: otherWorkspaceId } });
});

/** Every read of the API, with the runs it names. */
const reads = () => [
  "/api/v1/runs",
  `/api/v1/runs/${runA}`,
  `/api/v1/runs/${runA}/cells.csv`,
  `/api/v1/runs/${runA}/comparison`,
  `/api/v1/runs/${runA}/events`,
  `/api/v1/runs/${runA2}/verdict?baseline=${runA}`,
  `/api/v1/comparison?runs=${runA},${runA2}`,
  "/api/v1/servers",
  "/api/v1/workers",
  "/api/v1/reports",
];

describe("the API of a private lab", () => {
  it("answers every read without a token with a 401 naming authorization, as a change without one", async () => {
    for (const path of reads()) expectNeedsToken(await request(path), `GET ${path}`);
    expectNeedsToken(await request(`/api/v1/runs/${runA}/events`, { method: "HEAD" }), "HEAD events");
    // A sign-in whose token was revoked reads as no one: a 401 too, not the run.
    const lapsed = await tokenInDb(`private-lapsed-${unique}`);
    tokenIds.push(lapsed.token.id);
    await testDb().apiToken.update({ where: { id: lapsed.token.id }, data: { revokedAt: new Date() } });
    expectNeedsToken(await request(`/api/v1/runs/${runA}`, { cookie: lapsed.secret }), "lapsed cookie");
    // A revoked Authorization header still says so, as in every lab.
    const revoked = await request(`/api/v1/runs/${runA}`, { token: lapsed.secret });
    expect(revoked.status).toBe(401);
    expect((revoked.body as Problem).errors?.[0]?.message).toMatch(/revoked/);
    // Changes and tokens were already closed; they stay so.
    expect((await request("/api/v1/tokens")).status).toBe(401);
    const queued = await request("/api/v1/matrices", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(queued.status).toBe(401);
    expect((queued.body as Problem).errors?.[0]?.field).toBe("authorization");
  });

  it("leaves no read route of the OpenAPI document open but the session, the document and permalinks", async () => {
    const doc = (await request("/api/v1/openapi.json")).body as unknown as OpenApiDoc;
    const open = new Set([
      "/api/v1/openapi.json",
      "/api/v1/session",
      "/api/v1/reports/{slug}",
      "/api/v1/reports/{slug}/cells.csv",
    ]);
    const gets = Object.keys(doc.paths).filter((path) => "get" in (doc.paths[path] ?? {}));
    expect(gets.length).toBeGreaterThan(10);
    for (const path of gets) {
      const concrete = path
        .replace("{id}", runA)
        .replace("{slug}", reports.public)
        .replace("/verdict", `/verdict?baseline=${runA2}`)
        .replace("/api/v1/comparison", `/api/v1/comparison?runs=${runA},${runA2}`);
      const response = await request(concrete);
      if (open.has(path)) expect(response.status, path).toBe(200);
      else expect(response.status, path).toBe(401);
    }
    const session = await request("/api/v1/session");
    expect(session.body).toEqual({ access: "private", token: null });
  });

  it("answers every read with a token of the lab", async () => {
    for (const path of reads()) {
      const response = await request(path, { token: mine.secret });
      expect(response.status, `${path}: ${response.text.slice(0, 300)}`).toBe(200);
    }
    const head = await request(`/api/v1/runs/${runA}/events`, { method: "HEAD", token: mine.secret });
    expect(head.status).toBe(200);
    // The dashboard's sign-in cookie reads as well as the header.
    expect((await request(`/api/v1/runs/${runA}`, { cookie: mine.secret })).status).toBe(200);
    const verdict = await request(`/api/v1/runs/${runA2}/verdict?baseline=${runA}`, { token: mine.secret });
    expect(verdict.body).toMatchObject({ runId: runA2, baselineRunId: runA });
  });

  it("keeps a token to its workspace: another's runs are 404s, and lists leave them out", async () => {
    const runIdsOf = async (token: string) =>
      ((await request("/api/v1/runs?limit=100", { token })).body.runs as { id: string }[]).map((r) => r.id);
    const minesList = await runIdsOf(mine.secret);
    expect(minesList).toEqual(expect.arrayContaining([runA, runA2]));
    expect(minesList).not.toContain(runB);
    expect(await runIdsOf(theirs.secret)).toEqual([runB]);

    for (const path of [
      `/api/v1/runs/${runA}`,
      `/api/v1/runs/${runA}/cells.csv`,
      `/api/v1/runs/${runA}/comparison`,
      `/api/v1/runs/${runA}/events`,
      `/api/v1/runs/${runA2}/verdict?baseline=${runA}`,
    ]) {
      const response = await request(path, { token: theirs.secret });
      expect(response.status, path).toBe(404);
    }
    expect(
      (await request(`/api/v1/runs/${runA}/events`, { method: "HEAD", token: theirs.secret })).status,
    ).toBe(404);
    // Its own run judged against another workspace's: that baseline is none.
    const verdict = await request(`/api/v1/runs/${runB}/verdict?baseline=${runA}`, { token: theirs.secret });
    expect(verdict.status).toBe(404);
    expect((verdict.body as Problem).errors?.[0]?.field).toBe("baseline");
    const compared = await request(`/api/v1/comparison?runs=${runB},${runA}`, { token: theirs.secret });
    expect(compared.status).toBe(404);
    expect((compared.body as Problem).errors).toEqual([
      { field: "runs", message: `no run has the id "${runA}"` },
    ]);
    // Nor may it cancel or share what it may not read.
    const cancel = await request(`/api/v1/runs/${runA}/cancel`, { method: "POST", token: theirs.secret });
    expect(cancel.status).toBe(404);
    const shared = await request("/api/v1/reports", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ runId: runA, visibility: "public" }),
      token: theirs.secret,
    });
    expect(shared.status).toBe(404);

    // Reports: each token lists its own workspace's; another's public report still opens by its link.
    const listed = async (token: string) =>
      ((await request("/api/v1/reports", { token })).body.reports as { slug: string }[]).map((r) => r.slug);
    const mineListed = await listed(mine.secret);
    expect(mineListed).toEqual(expect.arrayContaining([reports.public, reports.unlisted, reports.private]));
    expect(mineListed).not.toContain(reports.theirsPublic);
    expect(await listed(theirs.secret)).toEqual([reports.theirsPublic]);
    expect((await request(`/api/v1/reports/${reports.public}`, { token: theirs.secret })).status).toBe(200);
    expect((await request(`/api/v1/reports/${reports.private}`, { token: theirs.secret })).status).toBe(404);
  });

  it("draws no workspace line where reading is open: a token there sees what anyone sees", async () => {
    const open = inject("webUrl");
    const read = await fetch(`${open}/api/v1/runs/${runA}`, {
      headers: { authorization: `Bearer ${theirs.secret}` },
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { run: { id: string } }).run.id).toBe(runA);
  });

  it("opens public and unlisted report permalinks without a token, private ones only with one", async () => {
    for (const slug of [reports.public, reports.unlisted]) {
      const json = await request(`/api/v1/reports/${slug}`);
      expect(json.status, slug).toBe(200);
      expect(json.body.runId).toBe(runA);
      const csv = await request(`/api/v1/reports/${slug}/cells.csv`);
      expect(csv.status, slug).toBe(200);
      expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
      const page = await request(`/r/${slug}`);
      expect(page.status, slug).toBe(200);
      expect(page.text).toContain(`private lab`);
    }
    expect((await request(`/api/v1/reports/${reports.private}`)).status).toBe(404);
    expect((await request(`/api/v1/reports/${reports.private}/cells.csv`)).status).toBe(404);
    expect((await request(`/r/${reports.private}`)).status).toBe(404);
    expect((await request(`/api/v1/reports/${reports.private}`, { token: mine.secret })).status).toBe(200);
    expect((await request(`/r/${reports.private}`, { cookie: mine.secret })).status).toBe(200);
  });
});

describe("the pages of a private lab", () => {
  it("send a visitor without a sign-in to it, coming back to the page afterwards", async () => {
    for (const [path, next] of [
      ["/", "/"],
      [`/runs/${runA}`, `/runs/${runA}`],
      // The query comes back as the page read it (its comma encoded).
      [`/compare?runs=${runA},${runA2}`, `/compare?runs=${runA}%2C${runA2}`],
      ["/reports", "/reports"],
      ["/runs/new", "/runs/new"],
      ["/studies", "/studies"],
      ["/settings/tokens", "/settings/tokens"],
      ["/servers", "/servers"],
    ] as const) {
      const response = await request(path);
      expect(response.status, path).toBe(307);
      expect(locationOf(response), path).toBe(`/sign-in?next=${encodeURIComponent(next)}`);
      // The page's own address is in the redirect; nothing of the run is.
      expect(response.text, path).not.toContain(`private-a-${unique}`);
    }
    // Every page of the app is above, but the sign-in and the permalinks: a new page that forgot
    // to ask for a sign-in would show a private lab's runs to anyone.
    const appDir = path.join(repoRoot, "apps/web/src/app");
    const routes = readdirSync(appDir, { recursive: true, encoding: "utf8" })
      .filter((file) => path.basename(file) === "page.tsx")
      .map((file) =>
        `/${path.dirname(file)}`
          .split("/")
          .filter((part) => part !== "" && part !== "." && !/^\(.*\)$/.test(part))
          .join("/"),
      )
      .map((route) => `/${route}`)
      .filter((route) => route !== "/sign-in" && !route.startsWith("/r/"));
    const checked = [
      "/",
      "/runs/[id]",
      "/compare",
      "/reports",
      "/runs/new",
      "/studies",
      "/settings/tokens",
      "/servers",
    ];
    expect(routes.sort()).toEqual(checked.sort());
    const signIn = await request("/sign-in?next=%2F");
    expect(signIn.status).toBe(200);
    expect(signIn.text).toMatch(/runs and results are private/);
    // Signed out, the header links to no page: each would only lead back here.
    expect(signIn.text).not.toContain('aria-label="Main"');
    expect((await request("/icon.svg")).status).toBe(200);
  });

  it("send a visitor whose sign-in lapsed to it too, and show a signed-in one its workspace only", async () => {
    const lapsed = await tokenInDb(`private-lapsed-page-${unique}`);
    tokenIds.push(lapsed.token.id);
    await testDb().apiToken.update({ where: { id: lapsed.token.id }, data: { revokedAt: new Date() } });
    const stale = await request(`/runs/${runA}`, { cookie: lapsed.secret });
    expect(stale.status).toBe(307);
    expect(locationOf(stale)).toBe(`/sign-in?next=${encodeURIComponent(`/runs/${runA}`)}`);
    expect(stale.text).not.toContain(`private-a-${unique}`);

    const list = await request("/", { cookie: mine.secret });
    expect(list.status).toBe(200);
    expect(list.text).toContain(`private-a-${unique}`);
    expect(list.text).not.toContain(`private-b-${unique}`);
    expect(list.text).toContain('aria-label="Main"');
    const run = await request(`/runs/${runA}`, { cookie: mine.secret });
    expect(run.status).toBe(200);
    expect(run.text).toContain(`private-a-${unique}`);
    expect((await request(`/runs/${runB}`, { cookie: mine.secret })).status).toBe(404);
    const compare = await request(`/compare?runs=${runA},${runB}`, { cookie: mine.secret });
    expect(compare.status).toBe(200);
    expect(compare.text).not.toContain(`private-b-${unique}`);
  });
});
