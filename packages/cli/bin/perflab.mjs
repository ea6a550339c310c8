#!/usr/bin/env node
// The perflab command: TypeScript sources loaded through tsx, so the CLI shares the lab's own zod
// contracts without a build step.
import { register } from "tsx/esm/api";

register();
try {
  const { run } = await import("../src/main.ts");
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  // Exit 1 means a regression to CI: anything unforeseen is an error of the command, 2.
  console.error(`perflab: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 2;
}
