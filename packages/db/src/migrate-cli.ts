// pnpm --filter @perflab/db migrate — applies pending prisma/migrations to DATABASE_URL.
import { backfillRollups, createDb } from "./index.ts";
import { migrate } from "./migrate.ts";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("DATABASE_URL is not set");
  process.exit(2);
}
try {
  const { applied } = await migrate(databaseUrl, { log: (message) => console.log(message) });
  console.log(applied.length ? `applied ${applied.length} migration(s)` : "no pending migrations");
  // Before web and worker start (compose waits for this step): long cells without all rollup levels.
  const db = createDb(databaseUrl);
  try {
    const minSeconds = Number(process.env.PERFLAB_ROLLUP_MIN_SECONDS || 600);
    const { rolledUp, failed } = await backfillRollups(db, { minSeconds });
    if (rolledUp) console.log(`rolled up ${rolledUp} long cell(s) that lacked rollups`);
    for (const f of failed) console.warn(`could not roll up cell ${f.cellId}: ${f.error}`);
  } finally {
    await db.$disconnect();
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
