// Runs `prisma generate` offline. Generation needs no engine, but the CLI tries to download the
// native schema engine unless PRISMA_SCHEMA_ENGINE_BINARY names an existing file; the Node binary
// itself serves (it is never executed by `generate`).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const prismaCli = path.join(path.dirname(require.resolve("prisma/package.json")), "build/index.js");

const result = spawnSync(
  process.execPath,
  [prismaCli, "generate", "--config", path.join(repoRoot, "prisma.config.ts")],
  {
    cwd: repoRoot,
    stdio: "inherit",
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
      // No update checks or telemetry: there is no internet to wait for.
      CHECKPOINT_DISABLE: "1",
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
    },
  },
);
process.exit(result.status ?? 1);
