import { defineConfig } from "vitest/config";

export default defineConfig({
  // fibonacci(35) and transform_data(100000) take seconds on a busy 2-core machine.
  test: { include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 30_000 },
});
