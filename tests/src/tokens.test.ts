/**
 * API tokens against the real stack: the first token made on the lab's machine (`pnpm -s token
 * create`), a web app with PERFLAB_ACCESS=token that refuses changes without one and writes nothing,
 * uploads and queued runs recorded with the token that made them, revoked and expired tokens refused
 * (in an open lab too), the dashboard's sign-in cookie, private reports and the CLI's --token.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot, type Service } from "../../scripts/lib/services.ts";
import { echoUploadOf, startTokenLab, testDb, tokenInDb, until } from "./helpers.ts";
import { ingested } from "./ingest-helpers.ts";

type Problem = { status: number; detail?: string; errors?: { field: string; message: string }[] };

const TOKEN = /^plab_[A-Za-z0-9_-]{43}$/;
const started: Service[] = [];
/** The web app of a shared lab: PERFLAB_ACCESS=token. */
let lab = "";
/** The suite's web app: an open lab. */
const open = () => inject("webUrl");
let ndjson = "";
const uploadQuery = "server=go&warmupSec=0&durationSec=2&tool=echo";

async function request(base: string, pathname: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  const response = await fetch(`${base}${pathname}`, { ...init, headers });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON (a page, or an empty 204): the status says enough.
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** An upload, waited for while the worker ingests it when the lab took it (202). */
async function upload(base: string, token?: string) {
  const response = await request(base, `/api/v1/uploads?${uploadQuery}`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: ndjson,
    token,
  });
  if (response.status === 202) {
    expect(await ingested(response.body.runId as string)).toMatchObject({ status: "succeeded" });
  }
  return response;
}

async function tokenCli(...args: string[]) {
  return promisify(execFile)(process.execPath, ["--import", "tsx", "packages/db/src/token-cli.ts", ...args], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATABASE_URL: inject("databaseUrl"),
    },
    timeout: 60_000,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: e.code ?? -1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    }),
  );
}

beforeAll(async () => {
  const web = await startTokenLab();
  started.push(web);
  lab = web.url;
  ndjson = await echoUploadOf("tokens");
}, 180_000);

afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
});

describe("the first token, made on the lab's machine", () => {
  it("is printed once, alone on stdout, and only its SHA-256 and first characters are stored", async () => {
    const created = await tokenCli("create", "--name", "bootstrap", "--expires-in-days", "30");
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(TOKEN);
    expect(created.stderr).toMatch(/only time it is shown/);
    const row = await testDb().apiToken.findUniqueOrThrow({
      where: { tokenHash: createHash("sha256").update(secret).digest("hex") },
    });
    // The lab's machine is the root of trust: its first token is an admin.
    expect(row).toMatchObject({
      name: "bootstrap",
      prefix: secret.slice(0, 12),
      revokedAt: null,
      role: "admin",
    });
    expect(JSON.stringify(row)).not.toContain(secret.slice(12));
    expect(row.expiresAt!.getTime() - Date.now()).toBeGreaterThan(29.9 * 86_400_000);

    const listed = await tokenCli("list");
    expect(listed.stdout).toMatch(
      new RegExp(`^${row.id}\\t${secret.slice(0, 12)}\\tadmin\\tactive\\tbootstrap`, "m"),
    );
    expect(listed.stdout).not.toContain(secret.slice(12));

    const bad = await tokenCli("create");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--name is required/);
    expect((await tokenCli("create", "--name", "x", "--expires-in-days", "0")).stderr).toMatch(
      /--expires-in-days must be a whole number from 1 to 365/,
    );
    const badRole = await tokenCli("create", "--name", "x", "--role", "owner");
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/--role must be "admin" or "member"/);
    const member = await tokenCli("create", "--name", "ci-member", "--role", "member");
    expect(member.code, member.stderr).toBe(0);
    expect(member.stderr).toMatch(/Created member token "ci-member"/);
    const memberRow = await testDb().apiToken.findUniqueOrThrow({
      where: { tokenHash: createHash("sha256").update(member.stdout.trim()).digest("hex") },
    });
    expect(memberRow.role).toBe("member");
    await testDb().apiToken.delete({ where: { id: memberRow.id } });

    const revoked = await tokenCli("revoke", row.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await testDb().apiToken.findUniqueOrThrow({ where: { id: row.id } })).revokedAt).not.toBeNull();
    expect((await tokenCli("revoke", "no-such-token")).stderr).toMatch(/no token has the id "no-such-token"/);
  }, 60_000);
});

describe("a lab with PERFLAB_ACCESS=token", () => {
  it("refuses every change without a token with a 401 naming the header, and writes nothing", async () => {
    const db = testDb();
    const runsBefore = await db.run.count();
    const tokensBefore = await db.apiToken.count();
    const spec = {
      name: "tokens: refused",
      servers: ["go"],
      scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "x" } } }],
      loadLevels: [{ vus: 1 }],
      durationSec: 1,
      warmupSec: 0,
    };
    const refused = [
      await request(lab, "/api/v1/matrices", { method: "POST", body: JSON.stringify(spec) }),
      await upload(lab),
      await request(lab, "/api/v1/reports", { method: "POST", body: JSON.stringify({ runId: "x" }) }),
      await request(lab, "/api/v1/runs/x/cancel", { method: "POST" }),
      await request(lab, "/api/v1/tokens", { method: "POST", body: JSON.stringify({ name: "sneaky" }) }),
      await request(lab, "/api/v1/tokens"),
      await request(lab, "/api/v1/tokens/x", { method: "DELETE" }),
    ];
    for (const r of refused) {
      expect(r.status).toBe(401);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="perflab"');
      expect((r.body as Problem).errors).toEqual([
        {
          field: "authorization",
          message: expect.stringMatching(/this lab needs an API token: send Authorization: Bearer/),
        },
      ]);
    }
    expect(await db.run.count()).toBe(runsBefore);
    expect(await db.apiToken.count()).toBe(tokensBefore);

    // Reading stays open.
    expect((await request(lab, "/api/v1/runs")).status).toBe(200);
    expect((await request(lab, "/api/v1/servers")).status).toBe(200);
    expect((await request(lab, "/api/v1/session")).body).toEqual({ access: "token", token: null });
  });

  it("takes an upload and a queued run with a token, and records the token on them", async () => {
    const { token, secret } = await tokenInDb("ci");

    const uploaded = await upload(lab, secret);
    expect(uploaded.status, uploaded.text).toBe(202);
    const run = await testDb().run.findUniqueOrThrow({ where: { id: uploaded.body.runId as string } });
    expect(run).toMatchObject({ source: "api", apiTokenId: token.id, status: "succeeded" });
    const used = await testDb().apiToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(used.lastUsedAt).not.toBeNull();
    // The API and the run page say which token sent it (never its secret).
    // Its id and name, not the secret's first characters: runs are read by anyone.
    const shown = { id: token.id, name: "ci" };
    const detail = await request(lab, `/api/v1/runs/${run.id}`);
    expect((detail.body.run as { token: unknown }).token).toEqual(shown);
    const listed = await request(lab, "/api/v1/runs?limit=5");
    const item = (listed.body.runs as { id: string; token: unknown }[]).find((r) => r.id === run.id);
    expect(item?.token).toEqual(shown);
    const home = await request(lab, "/");
    expect(home.text).toMatch(/data-testid="run-token-name">by (<!-- -->)?ci</);
    const page = await request(lab, `/runs/${run.id}`);
    expect(page.text).toMatch(/Sent by/);
    expect(page.text).toMatch(/data-testid="run-token">ci</);
    expect(page.text).not.toContain(token.prefix);
    expect(detail.text).not.toContain(token.prefix);
    expect(listed.text).not.toContain(token.prefix);

    const queued = await request(lab, "/api/v1/matrices", {
      method: "POST",
      token: secret,
      body: JSON.stringify({
        name: "tokens: queued",
        servers: ["go"],
        scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "x" } } }],
        loadLevels: [{ vus: 1 }],
        durationSec: 1,
        warmupSec: 0,
      }),
    });
    expect(queued.status, queued.text).toBe(201);
    const runId = queued.body.runId as string;
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).apiTokenId).toBe(token.id);
    // Cancelling needs the token as well; without it the run goes on.
    expect((await request(lab, `/api/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(401);
    const cancelled = await request(lab, `/api/v1/runs/${runId}/cancel`, { method: "POST", token: secret });
    expect([202, 409]).toContain(cancelled.status);
    await until(
      async () => {
        const r = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
        return ["cancelled", "succeeded", "failed"].includes(r.status) ? r : null;
      },
      60_000,
      "the queued run to end",
    );
  }, 90_000);

  it("the CLI sends --token (or PERFLAB_TOKEN), and says what was refused without it", async () => {
    const { token, secret } = await tokenInDb("cli");
    const file = path.join(inject("tmpDir"), "tokens", "out.ndjson");
    const cli = (env: Record<string, string>, ...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [path.join(repoRoot, "packages/cli/bin/perflab.mjs"), ...args, "--url", lab, "--json"],
        { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env } },
      ).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code?: number; stdout?: string; stderr?: string }) => ({
          code: e.code ?? -1,
          stdout: e.stdout ?? "",
          stderr: e.stderr ?? "",
        }),
      );
    const args = ["upload", file, "--server", "go", "--duration", "2", "--warmup", "0", "--tool", "echo"];

    const without = await cli({}, ...args);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(
      /401 This lab needs an API token[\s\S]*authorization: this lab needs an API token/,
    );

    const viaEnv = await cli({ PERFLAB_TOKEN: secret }, ...args);
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    const viaFlag = await cli({}, ...args, "--token", secret);
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    for (const out of [viaEnv.stdout, viaFlag.stdout]) {
      const runId = (JSON.parse(out) as { runId: string }).runId;
      expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).apiTokenId).toBe(token.id);
    }
  }, 60_000);
});

describe("a token that is sent is checked, in an open lab too", () => {
  it("refuses a malformed, unknown, revoked or expired token, naming the header", async () => {
    const revoked = await tokenInDb("old");
    await testDb().apiToken.update({ where: { id: revoked.token.id }, data: { revokedAt: new Date() } });
    const expired = await tokenInDb("lapsed", new Date(Date.now() - 1_000));
    const unknown = `plab_${"A".repeat(43)}`;
    const cases: [string | undefined, Record<string, string>, RegExp][] = [
      ["garbage", {}, /is not a perflab API token/],
      [unknown, {}, /is not a token of this lab/],
      [revoked.secret, {}, /token "old" was revoked/],
      [expired.secret, {}, /token "lapsed" expired/],
      [undefined, { authorization: "Basic dXNlcjpwYXNz" }, /must be "Bearer " followed by an API token/],
    ];
    const runsBefore = await testDb().run.count();
    for (const [token, headers, message] of cases) {
      const r = await request(open(), `/api/v1/uploads?${uploadQuery}`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson", ...headers },
        body: ndjson,
        token,
      });
      expect(r.status).toBe(401);
      expect((r.body as Problem).errors?.[0]).toEqual({
        field: "authorization",
        message: expect.stringMatching(message),
      });
      expect((r.body as Problem).detail).toMatch(/^API token refused \(the Authorization header\): /);
    }
    expect(await testDb().run.count()).toBe(runsBefore);
    // Without a token an open lab takes the upload.
    expect((await upload(open())).status).toBe(202);
  });

  it("refuses a bad token on reads too, before reading; no token or a valid one reads", async () => {
    const created = await upload(open());
    expect(created.status).toBe(202);
    const runId = (created.body as { runId: string }).runId;
    const baseline = await upload(open());
    expect(baseline.status).toBe(202);
    const baselineId = (baseline.body as { runId: string }).runId;
    const valid = await tokenInDb("reader");
    const revoked = await tokenInDb("gone");
    await testDb().apiToken.update({ where: { id: revoked.token.id }, data: { revokedAt: new Date() } });
    const reads: [string, string][] = [
      ["GET", "/api/v1/runs"],
      ["GET", `/api/v1/runs/${runId}`],
      ["GET", `/api/v1/runs/${runId}/comparison`],
      ["GET", `/api/v1/runs/${runId}/verdict?baseline=${baselineId}`],
      ["GET", `/api/v1/runs/${runId}/cells.csv`],
      ["HEAD", `/api/v1/runs/${runId}/events`],
      ["GET", `/api/v1/comparison?runs=${baselineId},${runId}`],
      ["GET", "/api/v1/servers"],
      ["GET", "/api/v1/workers"],
      ["GET", "/api/v1/openapi.json"],
    ];
    for (const [method, pathname] of reads) {
      const refused = await request(open(), pathname, { method, token: revoked.secret });
      expect(refused.status, `${method} ${pathname} with a revoked token`).toBe(401);
      if (method === "GET") {
        expect((refused.body as Problem).errors?.[0]).toEqual({
          field: "authorization",
          message: expect.stringMatching(/token "gone" was revoked/),
        });
      }
      const garbage = await request(open(), pathname, { method, token: "garbage" });
      expect(garbage.status, `${method} ${pathname} with a malformed token`).toBe(401);
      expect((await request(open(), pathname, { method })).status, `${method} ${pathname}`).toBe(200);
      const signed = await request(open(), pathname, { method, token: valid.secret });
      expect(signed.status, `${method} ${pathname} with a valid token`).toBe(200);
      // A dashboard cookie whose token was revoked reads as no one, as the pages treat it.
      const stale = await request(open(), pathname, {
        method,
        headers: { cookie: `perflab_token=${revoked.secret}` },
      });
      expect(stale.status, `${method} ${pathname} with a stale cookie`).toBe(200);
    }
  });
});

describe("the tokens API", () => {
  it("creates a token (its secret once), lists tokens without secrets, revokes; bad input names the field", async () => {
    const admin = await tokenInDb("api-admin", null, "admin");
    const invalid: [unknown, string][] = [
      [{ name: "" }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{ name: "x", expiresInDays: 0 }, "expiresInDays"],
      [{ name: "x", expiresInDays: 1.5 }, "expiresInDays"],
      [{ name: "x", scope: "all" }, "scope"],
      [{ name: "x", role: "owner" }, "role"],
    ];
    for (const [body, field] of invalid) {
      const r = await request(open(), "/api/v1/tokens", { method: "POST", body: JSON.stringify(body) });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect((r.body as Problem).errors?.[0]?.field).toBe(field);
    }

    const created = await request(open(), "/api/v1/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "nightly", expiresInDays: 90, role: "admin" }),
      token: admin.secret,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const { token, secret } = created.body as {
      token: { id: string; prefix: string; state: string };
      secret: string;
    };
    expect(secret).toMatch(TOKEN);
    expect(token).toMatchObject({
      prefix: secret.slice(0, 12),
      state: "active",
      lastUsedAt: null,
      role: "admin",
    });

    const listed = await request(open(), "/api/v1/tokens", { token: admin.secret });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(secret.slice(12));
    expect((listed.body.tokens as { id: string }[]).map((t) => t.id)).toContain(token.id);

    // The new token works at once, in the token lab as well.
    expect((await request(lab, "/api/v1/tokens", { token: secret })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const revoked = await request(lab, `/api/v1/tokens/${token.id}`, { method: "DELETE", token: secret });
      // The second time the token itself is revoked: it no longer authenticates.
      if (i === 0) expect(revoked.body).toMatchObject({ id: token.id, state: "revoked" });
      else expect(revoked.status).toBe(401);
    }
    // Revoking again (with another token) changes nothing; an unknown id is a 404.
    const again = await request(open(), `/api/v1/tokens/${token.id}`, {
      method: "DELETE",
      token: admin.secret,
    });
    expect(again.body).toMatchObject({ state: "revoked" });
    expect(
      (await request(open(), "/api/v1/tokens/nope", { method: "DELETE", token: admin.secret })).status,
    ).toBe(404);
  });

  it("in an open lab, anyone mints member tokens only, and lists or revokes none", async () => {
    const before = await testDb().apiToken.count();
    const adminAsked = await request(open(), "/api/v1/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "grab", role: "admin" }),
    });
    expect(adminAsked.status).toBe(403);
    expect((adminAsked.body as Problem).errors?.[0]).toMatchObject({ field: "role" });
    expect(await testDb().apiToken.count()).toBe(before);

    const minted = await request(open(), "/api/v1/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "anon-member" }),
    });
    expect(minted.status, minted.text).toBe(201);
    const { token, secret } = minted.body as { token: { id: string; role: string }; secret: string };
    expect(token.role).toBe("member");
    const row = await testDb().apiToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(row.mintedAnonymously).toBe(true);

    const other = await tokenInDb("anon-victim");
    for (const [pathname, method] of [
      ["/api/v1/tokens", "GET"],
      [`/api/v1/tokens/${other.token.id}`, "DELETE"],
    ] as const) {
      const anonymous = await request(open(), pathname, { method });
      expect(anonymous.status, `${method} ${pathname}`).toBe(401);
      expect((anonymous.body as Problem).errors?.[0]?.message).toMatch(/needs an admin token/);
      const member = await request(open(), pathname, { method, token: secret });
      expect(member.status, `${method} ${pathname} with a member token`).toBe(403);
    }
    expect(
      (await testDb().apiToken.findUniqueOrThrow({ where: { id: other.token.id } })).revokedAt,
    ).toBeNull();
    // It works in the open lab, and revokes itself.
    expect((await request(open(), "/api/v1/session", { token: secret })).body).toMatchObject({
      token: { name: "anon-member" },
    });
  });
});

describe("a token minted anonymously in an open lab", () => {
  it("stops working where the lab needs tokens unless an admin keeps it, and opens no private report", async () => {
    const minted = await request(open(), "/api/v1/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "anon-laptop" }),
    });
    expect(minted.status, minted.text).toBe(201);
    const { token, secret } = minted.body as { token: { id: string }; secret: string };

    const refused = await request(lab, "/api/v1/session", { token: secret });
    expect(refused.status).toBe(401);
    expect((refused.body as Problem).errors?.[0]?.message).toMatch(
      /token "anon-laptop" was minted without a token while the lab was open; an admin can keep it/,
    );
    const signIn = await request(lab, "/api/v1/session", {
      method: "POST",
      body: JSON.stringify({ token: secret }),
    });
    expect(signIn.status).toBe(401);
    expect((await upload(lab, secret)).status).toBe(401);

    // A private report, shared with a token an admin made, is not the anonymous token's to open.
    const kept = await tokenInDb("private-owner");
    const uploaded = await upload(open(), kept.secret);
    const runId = uploaded.body.runId as string;
    const privateReport = await request(open(), "/api/v1/reports", {
      method: "POST",
      token: kept.secret,
      body: JSON.stringify({ runId, visibility: "private" }),
    });
    expect(privateReport.status, privateReport.text).toBe(201);
    const slug = privateReport.body.slug as string;
    expect((await request(open(), `/api/v1/reports/${slug}`, { token: secret })).status).toBe(404);
    expect(
      (await request(open(), `/api/v1/reports/${slug}`, { method: "DELETE", token: secret })).status,
    ).toBe(404);
    const listed = await request(open(), `/api/v1/reports?runId=${runId}`, { token: secret });
    expect((listed.body.reports as { slug: string }[]).map((r) => r.slug)).not.toContain(slug);
    const own = await request(open(), "/api/v1/reports", {
      method: "POST",
      token: secret,
      body: JSON.stringify({ runId, visibility: "private" }),
    });
    expect(own.status).toBe(401);
    expect((own.body as Problem).errors?.[0]?.field).toBe("visibility");
    expect((await request(open(), `/api/v1/reports/${slug}`, { token: kept.secret })).status).toBe(200);

    // Kept by an admin on the lab's machine, it works in every mode.
    const keep = await tokenCli("keep", token.id);
    expect(keep.code, keep.stderr).toBe(0);
    expect((await request(lab, "/api/v1/session", { token: secret })).body).toMatchObject({
      token: { name: "anon-laptop" },
    });
  }, 60_000);
});

describe("roles in a lab that needs tokens", () => {
  it("a member token queues and uploads but manages no token except itself; an admin's manages all", async () => {
    const admin = await tokenInDb("roles-admin", null, "admin");
    const member = await tokenInDb("roles-member");
    const other = await tokenInDb("roles-other");
    expect(member.token.role).toBe("member");

    // A member's work: an upload is taken.
    const uploaded = await upload(lab, member.secret);
    expect(uploaded.status, uploaded.text).toBe(202);
    await testDb().run.delete({ where: { id: uploaded.body.runId as string } });

    // Listing, creating and revoking other tokens: a 403 naming the header and the token; nothing made.
    const before = await testDb().apiToken.count();
    for (const [pathname, method, body] of [
      ["/api/v1/tokens", "GET", undefined],
      ["/api/v1/tokens", "POST", JSON.stringify({ name: "minted", role: "admin" })],
      [`/api/v1/tokens/${other.token.id}`, "DELETE", undefined],
    ] as const) {
      const r = await request(lab, pathname, { method, body, token: member.secret });
      expect(r.status, `${method} ${pathname}`).toBe(403);
      expect((r.body as Problem).errors?.[0]).toMatchObject({ field: "authorization" });
      expect((r.body as Problem).errors?.[0]?.message).toContain('"roles-member" is a member token');
    }
    expect(await testDb().apiToken.count()).toBe(before);
    expect(
      (await testDb().apiToken.findUniqueOrThrow({ where: { id: other.token.id } })).revokedAt,
    ).toBeNull();

    // An admin lists every token with its role and makes an admin; a member revokes itself.
    const listed = await request(lab, "/api/v1/tokens", { token: admin.secret });
    expect(listed.status).toBe(200);
    const roles = Object.fromEntries(
      (listed.body.tokens as { name: string; role: string }[]).map((t) => [t.name, t.role]),
    );
    expect(roles).toMatchObject({ "roles-admin": "admin", "roles-member": "member" });
    const minted = await request(lab, "/api/v1/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "roles-minted", role: "admin" }),
      token: admin.secret,
    });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatchObject({ role: "admin" });
    const self = await request(lab, `/api/v1/tokens/${member.token.id}`, {
      method: "DELETE",
      token: member.secret,
    });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ state: "revoked", role: "member" });
    const session = await request(lab, "/api/v1/session", { token: admin.secret });
    expect(session.body.token).toMatchObject({ name: "roles-admin", role: "admin" });

    // In an open lab too, listing tokens takes an admin's: a member token's is a 403.
    expect((await request(open(), "/api/v1/tokens", { token: other.secret })).status).toBe(403);
    expect((await request(open(), "/api/v1/tokens", { token: admin.secret })).status).toBe(200);
  });
});

describe("the dashboard's sign-in and private reports", () => {
  it("signs in with a token cookie; a private report opens only with a token", async () => {
    const { secret } = await tokenInDb("laptop");

    const bad = await request(lab, "/api/v1/session", {
      method: "POST",
      body: JSON.stringify({ token: "nope" }),
    });
    expect(bad.status).toBe(401);
    expect((bad.body as Problem).errors?.[0]?.field).toBe("token");
    const empty = await request(lab, "/api/v1/session", {
      method: "POST",
      body: JSON.stringify({ token: "" }),
    });
    expect(empty.status).toBe(422);

    const signedIn = await request(lab, "/api/v1/session", {
      method: "POST",
      body: JSON.stringify({ token: secret }),
    });
    expect(signedIn.status).toBe(200);
    const setCookie = signedIn.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(
      /^perflab_token=plab_[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=2592000$/,
    );
    const cookie = setCookie.split(";")[0]!;
    expect((await request(lab, "/api/v1/session", { headers: { cookie } })).body).toMatchObject({
      access: "token",
      token: { name: "laptop", state: "active" },
    });
    const signedOut = await request(lab, "/api/v1/session", { method: "DELETE", headers: { cookie } });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.get("set-cookie")).toMatch(/^perflab_token=; .*Max-Age=0/);

    // A private report of a finished run: only with a token.
    const uploaded = await upload(lab, secret);
    const runId = uploaded.body.runId as string;
    const anonymous = await request(open(), "/api/v1/reports", {
      method: "POST",
      body: JSON.stringify({ runId, visibility: "private" }),
    });
    expect(anonymous.status).toBe(401);
    expect((anonymous.body as Problem).errors?.[0]?.field).toBe("visibility");
    const reportsBefore = await testDb().report.count();
    const created = await request(open(), "/api/v1/reports", {
      method: "POST",
      token: secret,
      body: JSON.stringify({ runId, visibility: "private" }),
    });
    expect(created.status, created.text).toBe(201);
    expect(await testDb().report.count()).toBe(reportsBefore + 1);
    const slug = created.body.slug as string;
    expect((await request(open(), `/api/v1/reports/${slug}`)).status).toBe(404);
    expect((await request(open(), `/api/v1/reports/${slug}/cells.csv`)).status).toBe(404);
    expect((await request(open(), `/r/${slug}`)).status).toBe(404);
    expect((await request(open(), `/api/v1/reports/${slug}`, { token: secret })).body).toMatchObject({
      visibility: "private",
      runId,
    });
    expect((await request(open(), `/api/v1/reports/${slug}/cells.csv`, { token: secret })).status).toBe(200);
    const page = await request(open(), `/r/${slug}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain("noindex");

    // Lists: in a lab that needs tokens, a reader without one sees public reports only; a token
    // of the workspace sees its private and unlisted ones too.
    const unlisted = await request(lab, "/api/v1/reports", {
      method: "POST",
      token: secret,
      body: JSON.stringify({ runId, visibility: "unlisted" }),
    });
    expect(unlisted.status, unlisted.text).toBe(201);
    const listed = async (base: string, token?: string) =>
      (
        (await request(base, `/api/v1/reports?runId=${runId}`, { token })).body.reports as { slug: string }[]
      ).map((r) => r.slug);
    expect(await listed(lab)).toEqual([]);
    expect(await listed(lab, secret)).toEqual([unlisted.body.slug, slug]);
    // An open lab lists neither to anyone: the unlisted one only to those given its link.
    expect(await listed(open())).toEqual([]);
    expect(await listed(open(), secret)).toEqual([unlisted.body.slug, slug]);
    expect((await request(lab, "/reports")).text).not.toContain(slug);
    expect((await request(lab, "/reports", { headers: { cookie } })).text).toContain(slug);

    // Revoking takes a token there: without one a 401 naming the header, and the report stays.
    const refused = await request(lab, `/api/v1/reports/${slug}`, { method: "DELETE" });
    expect(refused.status).toBe(401);
    expect((refused.body as Problem).errors?.[0]?.field).toBe("authorization");
    expect((await request(open(), `/api/v1/reports/${slug}`, { method: "DELETE" })).status).toBe(404);
    expect((await request(lab, `/api/v1/reports/${slug}`, { token: secret })).status).toBe(200);
    const revoked = await request(lab, `/api/v1/reports/${slug}`, { method: "DELETE", token: secret });
    expect(revoked.status).toBe(204);
    expect((await request(lab, `/api/v1/reports/${slug}`, { token: secret })).status).toBe(404);
    expect(await listed(lab, secret)).toEqual([unlisted.body.slug]);

    // A sign-in cookie whose token is gone reads a report as anyone would (the page does too); a
    // bad Authorization header is still a 401.
    const stale = `perflab_token=plab_${"x".repeat(43)}`;
    for (const path of [
      `/api/v1/reports/${unlisted.body.slug}`,
      `/api/v1/reports/${unlisted.body.slug}/cells.csv`,
    ]) {
      expect((await request(lab, path, { headers: { cookie: stale } })).status, path).toBe(200);
      expect((await request(lab, path, { token: `plab_${"x".repeat(43)}` })).status, path).toBe(401);
    }
  }, 60_000);
});
