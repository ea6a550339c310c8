import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort, waitForPort } from "../host.ts";
import type { Logger } from "../logger.ts";
import { OWNER_ENV, ownerMarker } from "../owner.ts";

const run = promisify(execFile);

/** Polls `url` until it answers 2xx; `dead` (the child could not start, or exited) ends the wait. */
async function waitForHealth(url: string, dead: () => string | null, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const reason = dead();
    if (reason) throw new Error(reason);
    const ok = await fetch(url, { signal: AbortSignal.timeout(500) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not become healthy within ${timeoutMs} ms`);
}

/** Whether a Redis on 127.0.0.1:port answers PING within `timeoutMs`. */
function redisAnswers(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let reply = "";
    const socket = connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      reply += chunk;
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}

/** The variable that points the worker at a fixture API it does not start (compose's `fixtures`). */
export const FIXTURE_API_URL_ENV = "PERFLAB_FIXTURE_API_URL";

/**
 * Checks that an externally run fixture API answers `GET /health`, retrying until `timeoutMs` (it may
 * still be starting beside the worker). Fails with the variable's name, so the fix is obvious.
 */
export async function checkExternalFixtureApi(apiUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let reason = "no answer";
  for (;;) {
    try {
      const response = await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      reason = `HTTP ${response.status}`;
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      reason = e.cause?.code ?? e.cause?.message ?? e.message;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `the fixture API at ${apiUrl} (${FIXTURE_API_URL_ENV}) does not answer GET /health (${reason}); ` +
      `start it (docker-compose's fixtures service) or unset ${FIXTURE_API_URL_ENV} to let the worker run its own`,
  );
}

/** Postgres's limit on a database or role name, in bytes. */
const PG_NAME_MAX = 63;
const DATABASE_PREFIX = "perflab_fixtures_";
const READER_SUFFIX = "_reader";

/**
 * The fixtures database of a worker host and the login role its servers use: `perflab_fixtures_<host>`
 * and `<database>_reader`. `<host>` is the host id lowercased with every character but [a-z0-9] as
 * `_`; when that changed the id (two ids could meet) or is too long for the role name's 63 bytes, it is
 * cut and 8 hex digits of the id's SHA-256 follow. Deterministic: a restarted worker reuses its own, and
 * workers of different hosts on one Postgres never share one (each resets its own before every cell).
 */
export function fixturesDatabaseNames(hostId: string): { database: string; reader: string } {
  const slug = hostId.toLowerCase().replace(/[^a-z0-9]/g, "_");
  const room = PG_NAME_MAX - DATABASE_PREFIX.length - READER_SUFFIX.length;
  let host = slug;
  if (slug !== hostId || slug.length > room || slug.length === 0) {
    const hash = createHash("sha256").update(hostId).digest("hex").slice(0, 8);
    host = `${slug.slice(0, room - hash.length - 1)}_${hash}`;
  }
  const database = DATABASE_PREFIX + host;
  return { database, reader: database + READER_SUFFIX };
}

/** Where a cell's I/O backends come from: processes beside the worker, or containers on a remote engine. */
export interface FixtureBackends {
  /** Starts them on first need; the variables a server gets: REDIS_URL, FIXTURE_API_URL, DATABASE_URL. */
  ensure(): Promise<Record<string, string>>;
  /** Flushes and re-seeds them, so every server starts from the same data; `signal` stops the reset. */
  reset(signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/**
 * The I/O backends servers call (servers/fixtures): the product API, a dedicated Redis (never the
 * lab's own: it is flushed before every server) and a fixtures database beside the lab's. Started
 * on first need and kept for the worker's life; reset before every cell that uses them.
 *
 * With `apiUrl` (PERFLAB_FIXTURE_API_URL) the product API is one run elsewhere (read-only, so it can
 * be shared): it is not started, only health-checked before every cell that uses it. The Redis and the
 * database stay the worker's: they are flushed and re-seeded per cell, so nothing else may own them.
 *
 * The database is this host's own (`fixturesDatabaseNames`), reset with the lab's credentials; servers
 * get a login role that may only SELECT its users table, with a password drawn once per instance
 * (fixture-reset creates the role, sets the password and grants, see servers/fixtures/README.md).
 */
export class Fixtures implements FixtureBackends {
  private started: Promise<Record<string, string>> | null = null;
  private readonly children: ChildProcess[] = [];
  /** What the started children are checked by before every use: alive, and answering. */
  private watched: { dead: () => string | null; answers: () => Promise<string | null> }[] = [];

  private readonly apiUrl: string | null;
  /**
   * This host's fixtures database with the lab's credentials (for fixture-reset), and as the reader
   * (for servers), whose URL-safe password is drawn once per instance and set by every reset.
   */
  private readonly database: { owner: string; reader: string };

  constructor(
    private readonly options: {
      fixturesDir: string;
      labDatabaseUrl: string;
      log: Logger;
      /** An externally run fixture API; unset: the worker starts fixture-api itself. */
      apiUrl?: string;
      /** How long an external API may take to answer its health check. */
      apiTimeoutMs?: number;
      /** The host id in the owner marker the children carry, so a later worker reaps them (see orphans.ts). */
      hostId?: string;
      /** How long started children may take to answer. */
      startTimeoutMs?: number;
      /** The fixture Redis's binary, found on PATH by default. */
      redisBin?: string;
      /** How long a started child may take to answer the check before every use (default 3 s). */
      checkTimeoutMs?: number;
    },
  ) {
    this.apiUrl = options.apiUrl ? options.apiUrl.replace(/\/+$/, "") : null;
    const names = fixturesDatabaseNames(options.hostId ?? os.hostname());
    const owner = new URL(options.labDatabaseUrl);
    owner.pathname = `/${names.database}`;
    const reader = new URL(owner);
    reader.username = names.reader;
    reader.password = randomBytes(24).toString("base64url");
    this.database = { owner: owner.toString(), reader: reader.toString() };
  }

  /**
   * The backend variables a server gets: REDIS_URL, FIXTURE_API_URL, DATABASE_URL. The children
   * started for an earlier cell are checked first: one that exited or does not answer any more (a
   * crashed fixture API would turn every later call into an error) has them all started again,
   * and when that fails too, the error says what was wrong and why they could not come back.
   */
  async ensure(): Promise<Record<string, string>> {
    // An external API can go away after it was first seen: check it before every use.
    if (this.apiUrl) await checkExternalFixtureApi(this.apiUrl, this.options.apiTimeoutMs ?? 10_000);
    const env = await this.backends();
    const problem = await this.problem();
    if (!problem) return env;
    this.options.log.warn(
      { problem },
      "a fixture process is gone or does not answer; starting the fixtures again",
    );
    this.stopChildren();
    try {
      return await this.backends();
    } catch (error) {
      throw new Error(`${problem}, and starting the fixtures again failed: ${(error as Error).message}`);
    }
  }

  /** Why the started children cannot serve a cell (the first that exited or does not answer), or null. */
  private async problem(): Promise<string | null> {
    for (const { dead } of this.watched) {
      const reason = dead();
      if (reason) return reason;
    }
    const answers = await Promise.all(this.watched.map((w) => w.answers()));
    return answers.find((reason) => reason !== null) ?? null;
  }

  /** Kills every child (one that hangs must go too), so the next use starts a fresh set. */
  private stopChildren(): void {
    for (const child of this.children.splice(0)) child.kill("SIGKILL");
    this.watched = [];
    this.started = null;
  }

  private backends(): Promise<Record<string, string>> {
    this.started ??= this.start().catch((error) => {
      this.started = null;
      throw error;
    });
    return this.started;
  }

  /** Flushes and re-seeds Redis and the users table, so every server starts from the same data. */
  async reset(signal?: AbortSignal): Promise<void> {
    const env = await this.backends();
    const { database } = this;
    const started = Date.now();
    try {
      await run(path.join(this.options.fixturesDir, "bin/fixture-reset"), [], {
        env: {
          PATH: process.env.PATH ?? "",
          REDIS_URL: env.REDIS_URL,
          DATABASE_URL: database.owner,
          DATABASE_READER_URL: database.reader,
        },
        timeout: 150_000,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(
        `fixture reset failed: ${(e.stderr ?? e.message).trim().split("\n").slice(-3).join(" | ")}`,
      );
    }
    this.options.log.debug({ ms: Date.now() - started }, "fixtures reset");
  }

  async close(): Promise<void> {
    // A start under way finishes first, so none of its children is left behind.
    await this.started?.catch(() => undefined);
    for (const child of this.children.splice(0)) child.kill("SIGTERM");
    this.watched = [];
    this.started = null;
  }

  /**
   * Spawns a fixture child carrying the worker's owner marker. A binary that cannot be started
   * (ENOENT, EACCES) is caught here instead of crashing the worker; `dead` names it, or its exit.
   */
  private spawnChild(
    command: string,
    args: string[],
    env: Record<string, string>,
  ): { child: ChildProcess; dead: () => string | null } {
    const marker = { [OWNER_ENV]: ownerMarker(this.options.hostId ?? os.hostname()) };
    const child = spawn(command, args, { env: { ...env, ...marker }, stdio: "ignore" });
    this.children.push(child);
    let spawnError: string | null = null;
    // Not `once`: a failed kill() emits 'error' too, and an unheard 'error' ends the worker.
    child.on("error", (error) => {
      spawnError ??= `could not start ${command}: ${error.message}`;
      this.options.log.warn({ err: error }, `fixture process ${command} failed`);
    });
    // A child that never started has a (negative errno) exit code before its 'error' arrives.
    const dead = () =>
      spawnError ??
      (child.pid !== undefined && (child.exitCode !== null || child.signalCode !== null)
        ? `${command} exited with ${child.exitCode ?? child.signalCode}`
        : null);
    return { child, dead };
  }

  private async start(): Promise<Record<string, string>> {
    try {
      return await this.startChildren();
    } catch (error) {
      // A failed start leaves nothing running: the next cell starts a fresh pair.
      this.stopChildren();
      throw error;
    }
  }

  private async startChildren(): Promise<Record<string, string>> {
    const timeoutMs = this.options.startTimeoutMs ?? 15_000;
    const checkMs = this.options.checkTimeoutMs ?? 3_000;
    let apiUrl = this.apiUrl;
    const waits: Promise<void>[] = [];
    const watched: typeof this.watched = [];
    if (!apiUrl) {
      const apiPort = await freePort();
      const api = this.spawnChild(path.join(this.options.fixturesDir, "bin/fixture-api"), [], {
        PORT: String(apiPort),
      });
      const url = `http://127.0.0.1:${apiPort}`;
      apiUrl = url;
      waits.push(waitForHealth(`${url}/health`, api.dead, timeoutMs));
      watched.push({
        dead: api.dead,
        answers: () =>
          waitForHealth(`${url}/health`, api.dead, checkMs).then(
            () => null,
            (error: Error) => `the fixture API does not answer (${error.message})`,
          ),
      });
    }
    const redisPort = await freePort();
    const redisBin = this.options.redisBin ?? "redis-server";
    const redis = this.spawnChild(
      redisBin,
      [
        "--port",
        String(redisPort),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--maxmemory-policy",
        "noeviction",
      ],
      { PATH: process.env.PATH ?? "" },
    );
    watched.push({
      dead: redis.dead,
      answers: () =>
        redisAnswers(redisPort, checkMs).then((ok) =>
          ok ? null : `the fixture Redis on port ${redisPort} does not answer PING within ${checkMs} ms`,
        ),
    });
    await Promise.all([...waits, waitForPort(redisPort, timeoutMs, redis.dead)]);
    this.watched = watched;
    this.options.log.info(
      {
        apiUrl,
        external: this.apiUrl !== null,
        redisPort,
        database: new URL(this.database.owner).pathname.slice(1),
      },
      "fixtures started",
    );
    return {
      FIXTURE_API_URL: apiUrl,
      REDIS_URL: `redis://127.0.0.1:${redisPort}/0`,
      // Servers (which may be user-registered images) get the reader, never the lab's credentials.
      DATABASE_URL: this.database.reader,
    };
  }
}
