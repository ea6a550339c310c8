/**
 * Servers registered through the API, per workspace: an image (the Go server's built image under
 * another name), an endpoint (the Go binary started here on a free port) and a command (admins
 * only). Bad input names its field; another workspace never sees them; a matrix runs them beside
 * `go` and `node` (the Rust binary is not built on every machine), an endpoint that does not answer
 * fails its cell with the reason while the others run, and an endpoint's cells record that they
 * have no CPU or RSS instead of zeros.
 */
import path from "node:path";
import { loadServerCatalog, serverImageTag } from "@perflab/catalog";
import { createApiToken } from "@perflab/db";
import { dockerAt } from "@perflab/worker/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, repoRoot, type Service } from "../../scripts/lib/services.ts";
import {
  api,
  expectConforms,
  perflab,
  startGoServer,
  startTokenLab,
  testDb,
  tokenInDb,
  waitForRun,
} from "./helpers.ts";

const IMAGE = "example.org/byo/mcp-go:2.0";
const goBinary = path.join(repoRoot, "servers/go/bin/server");
const docker = dockerAt();
const started: Service[] = [];
let endpoint: Awaited<ReturnType<typeof startGoServer>>;
let downPort: number;

const identity = (name: string) => ({
  name,
  displayName: `${name} (yours)`,
  language: "go",
  runtime: "go 1.26",
  sdk: { name: "github.com/modelcontextprotocol/go-sdk", version: "v1.8.0" },
  tools: ["echo", "fibonacci"],
});

const json = (body: unknown, token?: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

const fieldsOf = (body: Record<string, unknown>) => (body.errors as { field: string }[]).map((e) => e.field);

beforeAll(async () => {
  await docker.ping().catch((error: Error) => {
    throw new Error(`no Docker engine answers (${error.message}): run scripts/docker/start-dockerd.sh`);
  });
  const go = loadServerCatalog(path.join(repoRoot, "servers")).find((s) => s.name === "go")!;
  const goImage = await serverImageTag(go);
  await docker
    .getImage(goImage)
    .inspect()
    .catch(() => {
      throw new Error(`${goImage} is not on the engine: run scripts/docker/build-images.sh go`);
    });
  const [repo, tag] = IMAGE.split(/:(?=[^:]+$)/) as [string, string];
  await docker.getImage(goImage).tag({ repo, tag });
  endpoint = await startGoServer("registered-endpoint");
  downPort = await freePort();
  // Left from an earlier run of this file on the same database.
  await testDb().serverDefinition.deleteMany({ where: { name: { startsWith: "byo-" } } });
});

afterAll(async () => {
  for (const s of started.splice(0).reverse()) await s.stop().catch(() => undefined);
  await endpoint?.server.stop(5_000);
  await docker
    .getImage(IMAGE)
    .remove()
    .catch(() => undefined);
});

describe("registering a server", () => {
  it("registers an image and an endpoint, lists, reads, changes and removes them, naming bad fields", async () => {
    const image = await api(
      "/api/v1/servers",
      json({ ...identity("byo-image"), kind: "image", image: IMAGE }),
    );
    expect(image.status, JSON.stringify(image.body)).toBe(201);
    await expectConforms(image.body, "/api/v1/servers", "post", 201, "application/json");
    const url = endpoint.baseUrl;
    const ep = await api("/api/v1/servers", json({ ...identity("byo-endpoint"), kind: "endpoint", url }));
    expect(ep.status, JSON.stringify(ep.body)).toBe(201);

    const list = await api("/api/v1/servers");
    await expectConforms(list.body, "/api/v1/servers", "get", 200, "application/json");
    const servers = list.body.servers as { name: string; registered: { id: string; kind: string } | null }[];
    expect(servers.find((s) => s.name === "go")?.registered).toBeNull();
    expect(servers.find((s) => s.name === "byo-image")?.registered).toEqual({
      id: image.body.id,
      kind: "image",
    });
    expect(servers.find((s) => s.name === "byo-endpoint")?.registered?.kind).toBe("endpoint");

    const one = await api(`/api/v1/servers/${ep.body.id}`);
    expect(one.body).toMatchObject({ definition: { kind: "endpoint", url, mcpPath: "/mcp" } });

    const bad = [
      [{ ...identity("byo-x"), kind: "image", image: "no-tag" }, "image"],
      [{ ...identity("byo-x"), kind: "endpoint", url: "http://10.0.0.8:8080" }, "url"],
      [{ ...identity("Not A Slug"), kind: "endpoint", url }, "name"],
      [{ ...identity("byo-x"), kind: "vm" }, "kind"],
      [{ ...identity("byo-x"), kind: "image", image: IMAGE, imgae: "x" }, "imgae"],
    ] as const;
    for (const [body, field] of bad) {
      const refused = await api("/api/v1/servers", json(body));
      expect(refused.status, field).toBe(422);
      expect(fieldsOf(refused.body), field).toContain(field);
    }
    const taken = await api("/api/v1/servers", json({ ...identity("go"), kind: "endpoint", url }));
    expect([taken.status, fieldsOf(taken.body)]).toEqual([409, ["name"]]);
    const twice = await api(
      "/api/v1/servers",
      json({ ...identity("byo-image"), kind: "image", image: IMAGE }),
    );
    expect([twice.status, fieldsOf(twice.body)]).toEqual([409, ["name"]]);

    const patched = await api(`/api/v1/servers/${ep.body.id}`, {
      ...json({ displayName: "Mine, renamed" }),
      method: "PATCH",
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ definition: { displayName: "Mine, renamed", url } });
    const badPatch = await api(`/api/v1/servers/${ep.body.id}`, {
      ...json({ url: "ftp://x" }),
      method: "PATCH",
    });
    expect([badPatch.status, fieldsOf(badPatch.body)]).toEqual([422, ["url"]]);

    const scratch = await api("/api/v1/servers", json({ ...identity("byo-scratch"), kind: "endpoint", url }));
    const removed = await fetch(`${inject("webUrl")}/api/v1/servers/${scratch.body.id}`, {
      method: "DELETE",
    });
    expect(removed.status).toBe(204);
    expect((await api(`/api/v1/servers/${scratch.body.id}`)).status).toBe(404);
  });

  it("takes an admin token for a command, which runs on the lab's machine", async () => {
    const command = {
      ...identity("byo-command"),
      kind: "command",
      command: [goBinary],
    };
    const anyone = await api("/api/v1/servers", json(command));
    expect([anyone.status, fieldsOf(anyone.body)]).toEqual([403, ["kind"]]);
    const member = await tokenInDb("byo-member");
    const asMember = await api("/api/v1/servers", json(command, member.secret));
    expect([asMember.status, fieldsOf(asMember.body)]).toEqual([403, ["kind"]]);
    const admin = await tokenInDb("byo-admin", null, "admin");
    const asAdmin = await api("/api/v1/servers", json(command, admin.secret));
    expect(asAdmin.status, JSON.stringify(asAdmin.body)).toBe(201);
    expect(asAdmin.body).toMatchObject({ definition: { kind: "command", cwd: "/", env: {} } });
  });

  it("keeps each workspace's servers its own", async () => {
    const lab = await startTokenLab("private");
    started.push(lab);
    const db = testDb();
    const other = await db.workspace.upsert({
      where: { slug: "byo-other" },
      create: { slug: "byo-other", name: "Another team" },
      update: {},
    });
    const stranger = await createApiToken(db, { workspaceId: other.id, name: "stranger" });
    const mine = (await db.serverDefinition.findFirstOrThrow({ where: { name: "byo-image" } })).id;
    const auth = { authorization: `Bearer ${stranger.secret}` };
    const listed = (await (await fetch(`${lab.url}/api/v1/servers`, { headers: auth })).json()) as {
      servers: { name: string }[];
    };
    expect(listed.servers.map((s) => s.name)).toContain("go");
    expect(listed.servers.filter((s) => s.name.startsWith("byo-"))).toEqual([]);
    expect((await fetch(`${lab.url}/api/v1/servers/${mine}`, { headers: auth })).status).toBe(404);
    const patch = await fetch(`${lab.url}/api/v1/servers/${mine}`, {
      method: "DELETE",
      headers: { ...auth, origin: lab.url },
    });
    expect(patch.status).toBe(404);
    const matrix = await fetch(`${lab.url}/api/v1/matrices`, {
      ...json(
        {
          servers: ["byo-image"],
          scenarios: [{ id: "mcp-tool-call", params: { tool: "echo" } }],
          loadLevels: [{ vus: 1 }],
          durationSec: 2,
        },
        stranger.secret,
      ),
      headers: { "content-type": "application/json", ...auth, origin: lab.url },
    });
    expect(matrix.status).toBe(422);
    expect(fieldsOf((await matrix.json()) as Record<string, unknown>)).toContain("servers.0");
    // The same name is free in another workspace.
    const own = await fetch(`${lab.url}/api/v1/servers`, {
      ...json({ ...identity("byo-image"), kind: "image", image: IMAGE }, stranger.secret),
      headers: { "content-type": "application/json", ...auth, origin: lab.url },
    });
    expect(own.status).toBe(201);
  });
});

describe("a registered server's run", () => {
  it("runs an image, a command and an endpoint beside go and node; an endpoint that does not answer fails its cell alone", async () => {
    const down = await api(
      "/api/v1/servers",
      json({ ...identity("byo-down"), kind: "endpoint", url: `http://127.0.0.1:${downPort}` }),
    );
    expect(down.status).toBe(201);
    const created = await api(
      "/api/v1/matrices",
      json({
        name: "bring your own",
        servers: ["go", "node", "byo-image", "byo-command", "byo-endpoint", "byo-down"],
        scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } }],
        loadLevels: [{ vus: 2 }],
        durationSec: 3,
        warmupSec: 1,
        cooldownSec: 0,
      }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.runId as string;
    const finished = await waitForRun(runId, 300_000);
    const cells = await testDb().cell.findMany({ where: { runId }, include: { summary: true } });
    const by = (name: string) => cells.find((c) => c.serverName === name)!;

    for (const name of ["go", "node", "byo-image", "byo-command", "byo-endpoint"]) {
      const cell = by(name);
      expect([name, cell.status, cell.error]).toEqual([name, "succeeded", null]);
      expect(cell.summary!.requests, name).toBeGreaterThan(0n);
      expect(cell.summary!.errors, name).toBe(0n);
    }
    const image = by("byo-image");
    expect(image.driver).toBe("docker");
    expect(image.serverDefinitionId).toBe(
      (
        await testDb().serverDefinition.findFirstOrThrow({
          where: { name: "byo-image", workspace: { slug: "default" } },
        })
      ).id,
    );
    expect(image.serverBuild).toMatchObject({
      image: IMAGE,
      sdk: identity("x").sdk,
      registered: { kind: "image" },
    });
    expect(image.summary!.cpuAvgPct).not.toBeNull();
    // The admin's command runs under the local driver, its process sampled like the lab's own.
    const command = by("byo-command");
    expect(command.driver).toBe("local");
    expect(command.serverBuild).toMatchObject({ command: [goBinary], registered: { kind: "command" } });
    expect(command.summary!.rssPeakBytes).toBeGreaterThan(0n);

    const ep = by("byo-endpoint");
    expect(ep.serverBuild).toMatchObject({
      registered: { kind: "endpoint", url: endpoint.baseUrl },
      unmeasured: ["cpu", "rss"],
      sdk: identity("x").sdk,
    });
    // No process of its own to read: nothing, rather than zeros.
    expect([ep.summary!.cpuAvgPct, ep.summary!.rssAvgBytes, ep.idleRssBytes]).toEqual([null, null, null]);
    // The endpoint is still up: perflab stops nothing it did not start.
    expect(await fetch(`${endpoint.baseUrl}/health`).then((r) => r.status)).toBe(200);

    const failed = by("byo-down");
    expect(failed.status).toBe("failed");
    expect(failed.error).toContain(
      `the registered endpoint http://127.0.0.1:${downPort} is unreachable or unhealthy`,
    );
    expect(finished.status).toBe("partial");

    const detail = await api(`/api/v1/runs/${runId}`);
    const dto = (detail.body.cells as { serverName: string; unmeasured: string[] }[]).find(
      (c) => c.serverName === "byo-endpoint",
    );
    expect(dto?.unmeasured).toEqual(["cpu", "rss"]);
    const comparison = await api(`/api/v1/runs/${runId}/comparison`);
    const groups = (
      comparison.body.workloads as { groups: { server: string; unmeasured?: string[] }[] }[]
    )[0]!.groups;
    expect(groups.find((g) => g.server === "byo-endpoint")?.unmeasured).toEqual(["cpu", "rss"]);
    expect(groups.find((g) => g.server === "go")?.unmeasured).toEqual([]);
  }, 360_000);

  it("is listed by the CLI and queued by a study beside the lab's servers", async () => {
    const listed = await perflab("servers", "list");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      /^byo-endpoint {2}endpoint {2}github.com\/modelcontextprotocol\/go-sdk v1.8.0$/m,
    );
    expect(listed.stdout).toMatch(/^go {2}lab {2}/m);
    const queued = await perflab(
      "study",
      "trivial-route",
      "--quick",
      "--no-wait",
      "--server",
      "go",
      "--with",
      "byo-endpoint",
    );
    expect(queued.code, queued.stderr).toBe(0);
    const runId = queued.stdout.trim();
    try {
      const cells = await testDb().cell.findMany({ where: { runId }, orderBy: { index: "asc" } });
      expect([...new Set(cells.map((c) => c.serverName))]).toEqual(["go", "byo-endpoint"]);
      expect(cells.filter((c) => c.serverDefinitionId !== null).map((c) => c.serverName)).toEqual([
        "byo-endpoint",
        "byo-endpoint",
      ]);
    } finally {
      expect((await api(`/api/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(202);
      await waitForRun(runId, 60_000);
    }
  });
});
