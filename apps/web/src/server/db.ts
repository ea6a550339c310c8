import { createDb } from "@perflab/db";
import { env } from "../env";

export type Db = ReturnType<typeof createDb>;

// One client per process; kept on globalThis so dev-mode module reloads don't open new pools.
const globalForDb = globalThis as unknown as { perflabDb?: Db };

export function getDb(): Db {
  globalForDb.perflabDb ??= createDb(env.DATABASE_URL);
  return globalForDb.perflabDb;
}
