/**
 * Starts the real services once for the integration and browser tests: Postgres, Redis, a worker
 * and the web app, on free ports in a temporary directory. Missing prerequisites fail the run.
 */
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadServerCatalog } from "@perflab/catalog";
import type { TestProject } from "vitest/node";
import {
  freePort,
  repoRoot,
  type Service,
  startPostgres,
  startRedis,
  startWeb,
  startWorker,
} from "../../scripts/lib/services.ts";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    webUrl: string;
    serversDir: string;
    tmpDir: string;
  }
}

/** A test-only server: a manifest whose start command is a shell line (the Go server's tools). */
async function writeShellServer(dir: string, name: string, shell: string) {
  await mkdir(path.join(dir, name));
  await writeFile(
    path.join(dir, `${name}/perflab.json`),
    JSON.stringify({
      name,
      displayName: `${name} (test)`,
      language: "shell",
      runtime: "bash",
      sdk: { name: "none", version: "0" },
      build: { command: "true", inputs: [] },
      start: { command: ["bash", "-c", shell], env: {} },
      tools: ["echo"],
    }),
  );
}

/**
 * Servers the tests need beside the reference ones: one that dies before it is healthy, one killed
 * 3 s after it starts (mid-load), one whose process group ignores SIGTERM, one that never answers.
 */
async function writeTestServers(dir: string) {
  await mkdir(dir, { recursive: true });
  // Every reference server, as the web app's catalog has them, plus the test-only ones.
  for (const server of loadServerCatalog(path.join(repoRoot, "servers"))) {
    await symlink(server.dir, path.join(dir, server.name));
  }
  const go = path.join(repoRoot, "servers/go/bin/server");
  await writeShellServer(dir, "crashes", `exec timeout -s KILL 3 ${go}`);
  // The Go server stops on SIGTERM; the shell and its sleep ignore it, so only SIGKILL ends the group.
  await writeShellServer(dir, "stubborn", `trap '' TERM; ${go} & wait $!; sleep 600`);
  await writeShellServer(dir, "silent", "echo 'starting'; exec sleep 600");
  await mkdir(path.join(dir, "broken"));
  await writeFile(
    path.join(dir, "broken/perflab.json"),
    JSON.stringify({
      name: "broken",
      displayName: "Broken (test)",
      language: "shell",
      runtime: "bash",
      sdk: { name: "none", version: "0" },
      build: { command: "true", inputs: [] },
      start: {
        command: ["bash", "-c", "echo 'listening soon'; echo 'fatal: config missing' >&2; exit 3"],
        env: {},
      },
      tools: ["echo"],
    }),
  );
}

export default async function setup(project: TestProject) {
  const tmpDir = await mkdtemp(path.join(os.tmpdir(), "perflab-tests-"));
  // Postgres runs as its own user when the tests run as root: it must reach its data dir.
  await chmod(tmpDir, 0o755);
  const services: Service[] = [];
  const log = process.env.PERFLAB_TEST_LOGS ? (line: string) => console.log(line) : undefined;
  try {
    const serversDir = path.join(tmpDir, "servers");
    await writeTestServers(serversDir);
    const redis = await startRedis({ dir: path.join(tmpDir, "redis"), port: await freePort(), log });
    services.push(redis);
    const pg = await startPostgres({
      dir: path.join(tmpDir, "pg"),
      port: await freePort(),
      durable: false,
      log,
    });
    services.push(pg);
    const worker = startWorker({
      databaseUrl: pg.url,
      redisUrl: redis.url,
      env: {
        PERFLAB_SERVERS_DIR: serversDir,
        PERFLAB_WORK_DIR: path.join(tmpDir, "work"),
        // See vitest.config.ts: workers on other Redis instances share this Postgres.
        PERFLAB_RECONCILE_GRACE_MS: String(3_600_000),
        // Every cell of the suite is short: roll up any with more than 2 seconds, so the tests see rollups
        // (the uploads' too, which the worker ingests: 3 measured seconds).
        PERFLAB_ROLLUP_MIN_SECONDS: "2",
      },
      log,
    });
    services.push(worker);
    const web = await startWeb({
      databaseUrl: pg.url,
      redisUrl: redis.url,
      port: await freePort(),
      // uploads.test.ts sends a body just over this limit: 50 MiB keeps that test small.
      env: { PERFLAB_UPLOAD_MAX_BYTES: String(50 * 2 ** 20) },
      log,
    });
    services.push(web);
    project.provide("databaseUrl", pg.url);
    project.provide("redisUrl", redis.url);
    project.provide("webUrl", web.url);
    project.provide("serversDir", serversDir);
    project.provide("tmpDir", tmpDir);
  } catch (error) {
    for (const s of services.reverse()) await s.stop().catch(() => undefined);
    throw error;
  }
  return async () => {
    for (const s of services.reverse()) await s.stop().catch(() => undefined);
    await rm(tmpDir, { recursive: true, force: true });
  };
}
