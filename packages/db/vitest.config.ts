import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each file starts a real Postgres (initdb + start take a few seconds).
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
