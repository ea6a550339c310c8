/**
 * Runs each server's own test suite: the `test.command` of its perflab.json, a shell line run in its
 * folder, one server after another (they share the machine's cores). A server without `test` is named
 * with what that means. Fails at the end if any suite failed, after running the others.
 * Usage: tsx scripts/test-servers.ts [server names ...]   (default: every server in servers/)
 * PERFLAB_SERVERS_DIR reads the servers from another folder laid out the same way.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { loadServerCatalog } from "@perflab/catalog";

const root = path.resolve(import.meta.dirname, "..");
const serversDir = process.env.PERFLAB_SERVERS_DIR ?? path.join(root, "servers");
const only = process.argv.slice(2);
const catalog = loadServerCatalog(serversDir);
const unknown = only.filter((name) => !catalog.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(`no such server in ${serversDir}: ${unknown.join(", ")}`);
  process.exit(1);
}

const failed: string[] = [];
for (const server of catalog) {
  if (only.length > 0 && !only.includes(server.name)) continue;
  if (!server.test) {
    console.log(`  ${server.name}: no test command in its perflab.json`);
    continue;
  }
  console.log(`  ${server.name}: ${server.test.command}`);
  const started = Date.now();
  const result = spawnSync("bash", ["-o", "pipefail", "-c", server.test.command], {
    cwd: server.dir,
    stdio: "inherit",
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    console.log(`✓ ${server.name} in ${seconds} s`);
  } else {
    console.error(`✗ ${server.name}: exit ${result.status ?? result.signal} after ${seconds} s`);
    failed.push(server.name);
  }
}
if (failed.length > 0) {
  console.error(`server suites failed: ${failed.join(", ")}`);
  process.exit(1);
}
