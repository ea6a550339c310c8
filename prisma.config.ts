// Read by the Prisma CLI (`prisma generate`, `prisma migrate deploy` where an engine is available).
// A type-only import: the root has no runtime dependency on `prisma`; @perflab/db provides the CLI.
import type { PrismaConfig } from "prisma/config";

export default {
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  // Optional so `prisma generate` works without a database; migrate commands need DATABASE_URL.
  datasource: { url: process.env.DATABASE_URL },
} satisfies PrismaConfig;
