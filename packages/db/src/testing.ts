import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { findFreePort, startEmbeddedPostgres } from "./embedded-postgres.ts";
import { migrate } from "./migrate.ts";

export interface TestPostgres {
  url: string;
  stop: () => Promise<void>;
}

export interface StartTestPostgresOptions {
  /** Apply prisma/migrations before returning. */
  migrate?: boolean;
}

/**
 * A throwaway Postgres for integration tests: fresh cluster in a temp dir on a free port,
 * removed again by `stop()`. Takes a few seconds (initdb); start one per test file.
 */
export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const root = await mkdtemp(path.join(os.tmpdir(), "perflab-pg-"));
  // mkdtemp creates 0700; the cluster may run as the `postgres` user when tests run as root.
  await chmod(root, 0o755);
  const dataDir = path.join(root, "data");
  const removeRoot = () => rm(root, { recursive: true, force: true });

  let lastError: unknown;
  // Another process can take the probed port before Postgres binds it; try a few ports.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const port = await findFreePort();
      const server = await startEmbeddedPostgres({ dataDir, port, database: "perflab_test", durable: false });
      try {
        if (options.migrate) await migrate(server.url);
      } catch (error) {
        await server.stop();
        await removeRoot();
        throw error;
      }
      return {
        url: server.url,
        stop: async () => {
          await server.stop();
          await removeRoot();
        },
      };
    } catch (error) {
      lastError = error;
      if (!String(error).includes("could not bind") && !String(error).includes("already in use")) break;
    }
  }
  await removeRoot();
  throw lastError;
}
