#!/usr/bin/env node
// The perflab command: TypeScript sources loaded through tsx, so the CLI shares the lab's own zod
// contracts without a build step.
import { register } from "tsx/esm/api";

register();
const { run } = await import("../src/main.ts");
process.exitCode = await run(process.argv.slice(2));
