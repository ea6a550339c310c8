/**
 * Builds every reference server natively (in parallel), skipping servers whose sources are
 * unchanged since their last successful build. Prints each build time as the build ends.
 *
 * While a server builds, `.perflab/build/<name>.building` holds this process's pid: the worker
 * waits for every build to end before it measures a cell (see @perflab/catalog).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  type CatalogEntry,
  loadServerCatalog,
  markBuildFailed,
  markBuilding,
  nativeBuildHash,
  recordBuildSeconds,
  unmarkBuildFailed,
  unmarkBuilding,
} from "@perflab/catalog";

const root = path.resolve(import.meta.dirname, "..");
const stampDir = path.join(root, ".perflab/build");
const only = process.argv.slice(2);

function sh(command: string, cwd: string, logFile: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-o", "pipefail", "-c", `(${command}) > ${JSON.stringify(logFile)} 2>&1`], {
      cwd,
      stdio: "inherit",
    });
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

/** Markers of the builds under way, removed however this process ends. */
const marked = new Set<string>();
function unmarkAll() {
  for (const name of marked) unmarkBuilding(stampDir, name);
  marked.clear();
}
process.on("exit", unmarkAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    unmarkAll();
    process.exit(130);
  });
}

async function build(server: CatalogEntry, hash: string): Promise<boolean> {
  const started = Date.now();
  // A build that fails may have replaced part of its output: only a later success says it is whole.
  await rm(path.join(stampDir, `${server.name}.sha256`), { force: true });
  const logFile = path.join(stampDir, `${server.name}.log`);
  const code = await sh(server.build.command, server.dir, logFile);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (code !== 0) {
    // Read by the worker (a local cell of this server fails with it) and by the run form.
    markBuildFailed(
      stampDir,
      server.name,
      `exit ${code} after ${seconds} s; log: ${path.relative(root, logFile)}; rebuild: pnpm build:servers ${server.name}`,
    );
    console.error(
      `✗ ${server.name.padEnd(10)} build failed after ${seconds} s (exit ${code}); log: ${logFile}`,
    );
    console.error((await readFile(logFile, "utf8")).split("\n").slice(-30).join("\n"));
    return false;
  }
  await writeFile(path.join(stampDir, `${server.name}.sha256`), hash);
  recordBuildSeconds(stampDir, server.name, (Date.now() - started) / 1000); // the run form's estimate
  unmarkBuildFailed(stampDir, server.name);
  console.log(`✓ ${server.name.padEnd(10)} ${seconds} s`);
  return true;
}

await mkdir(stampDir, { recursive: true });
const servers = loadServerCatalog().filter((s) => only.length === 0 || only.includes(s.name));
const stale: { server: CatalogEntry; hash: string }[] = [];
for (const server of servers) {
  const hash = await nativeBuildHash(server);
  const stamp = path.join(stampDir, `${server.name}.sha256`);
  if (existsSync(stamp) && (await readFile(stamp, "utf8")) === hash) {
    // A marker left by a build that was killed: the server is built, nothing builds it now.
    unmarkBuilding(stampDir, server.name);
    unmarkBuildFailed(stampDir, server.name);
    console.log(`✓ ${server.name.padEnd(10)} up to date`);
  } else {
    stale.push({ server, hash });
  }
}
// Every marker before the first build starts: a worker never sees "nothing building" in between.
for (const { server } of stale) {
  markBuilding(stampDir, server.name);
  marked.add(server.name);
}
const results = await Promise.all(
  stale.map(({ server, hash }) =>
    build(server, hash).finally(() => {
      unmarkBuilding(stampDir, server.name);
      marked.delete(server.name);
    }),
  ),
);
if (results.some((ok) => !ok)) process.exit(1);
