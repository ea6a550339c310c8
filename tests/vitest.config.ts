import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/global-setup.ts"],
    // One machine runs one benchmark at a time: files run one after another.
    fileParallelism: false,
    testTimeout: 120_000,
    // Tests run workers on several Redis instances over one Postgres, which no deployment does: a
    // worker must not adopt another Redis's pending cells (reconcile.test.ts sets its own grace).
    env: { PERFLAB_RECONCILE_GRACE_MS: String(3_600_000) },
    hookTimeout: 180_000,
  },
});
