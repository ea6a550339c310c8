// pnpm --filter @perflab/db migrate — applies pending prisma/migrations to DATABASE_URL.
import { migrate } from "./migrate.ts";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("DATABASE_URL is not set");
  process.exit(2);
}
try {
  const { applied } = await migrate(databaseUrl, { log: (message) => console.log(message) });
  console.log(applied.length ? `applied ${applied.length} migration(s)` : "no pending migrations");
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
