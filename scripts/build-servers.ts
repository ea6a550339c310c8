/**
 * Builds every reference server natively (in parallel), skipping servers whose sources are
 * unchanged since their last successful build. Prints each build time.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type CatalogEntry, loadServerCatalog } from "@perflab/contracts/server-catalog";
import { glob } from "tinyglobby";

const root = path.resolve(import.meta.dirname, "..");
const stampDir = path.join(root, ".perflab/build");
const only = process.argv.slice(2);

async function sourceHash(server: CatalogEntry): Promise<string> {
  const files = (
    await glob([...server.build.inputs, "perflab.json"], {
      cwd: server.dir,
      ignore: ["**/node_modules/**", "**/target/**", "bin/**"],
    })
  ).sort();
  const hash = createHash("sha256").update(server.build.command);
  for (const file of files) hash.update(file).update(await readFile(path.join(server.dir, file)));
  return hash.digest("hex");
}

function sh(command: string, cwd: string, logFile: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-o", "pipefail", "-c", `(${command}) > ${JSON.stringify(logFile)} 2>&1`], {
      cwd,
      stdio: "inherit",
    });
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

async function build(
  server: CatalogEntry,
): Promise<{ name: string; seconds: number; cached: boolean; ok: boolean }> {
  const stamp = path.join(stampDir, `${server.name}.sha256`);
  const hash = await sourceHash(server);
  const built = existsSync(stamp) && (await readFile(stamp, "utf8")) === hash;
  if (built) return { name: server.name, seconds: 0, cached: true, ok: true };
  const started = Date.now();
  const logFile = path.join(stampDir, `${server.name}.log`);
  const code = await sh(server.build.command, server.dir, logFile);
  const seconds = (Date.now() - started) / 1000;
  if (code !== 0) {
    console.error(`✗ ${server.name}: build failed (exit ${code}); log: ${logFile}`);
    console.error((await readFile(logFile, "utf8")).split("\n").slice(-30).join("\n"));
    return { name: server.name, seconds, cached: false, ok: false };
  }
  await writeFile(stamp, hash);
  return { name: server.name, seconds, cached: false, ok: true };
}

await mkdir(stampDir, { recursive: true });
const servers = loadServerCatalog().filter((s) => only.length === 0 || only.includes(s.name));
const results = await Promise.all(servers.map(build));
for (const r of results) {
  console.log(
    `${r.ok ? "✓" : "✗"} ${r.name.padEnd(10)} ${r.cached ? "up to date" : `${r.seconds.toFixed(1)} s`}`,
  );
}
if (results.some((r) => !r.ok)) process.exit(1);
