/**
 * Builds perflab's images offline, skipping every image whose tag already exists:
 *   perflab/debian-base:bookworm   debootstrap --variant=minbase + docker import
 *   perflab/<runtime>:<version>    local stand-ins for the official bases the Dockerfiles name in ARGs
 *   perflab/server-<name>:<hash>   each reference server (tag = hash of its sources, as the driver computes)
 *   perflab/fixtures:<hash>        the fixture API and reset binaries
 *   perflab/k6:<hash>              the pinned k6 with perflab's output (packages/k6-output), FROM scratch
 *   perflab/postgres, redis        Debian's, for compose and a remote engine's fixtures (with --apps or `backends`)
 *   perflab/app                    the image docker-compose.yml runs as web, worker and migrate (with --apps)
 * With DOCKER_HOST set, every image is built on that engine (a remote engine needs the servers it runs,
 * fixtures, k6 and backends). A server whose perflab.json registers a prebuilt `image` is skipped (it
 * must be pulled or loaded onto the engine); PERFLAB_SERVERS_DIR reads the servers from another folder.
 * Usage: tsx scripts/docker/build-images.ts [--apps] [--only-apps] [server names | fixtures | k6 | backends ...]
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fixturesImageTag, k6ImageTag, loadServerCatalog, serverImageTag } from "@perflab/catalog";
import { debianBase } from "./images/bases.ts";
import { appImages, backendImages, imageFromDir } from "./images/builds.ts";
import { imageExists, logDir, results, root, sh, warnIfEngineDiskLow } from "./images/engine.ts";
import { pruneSupersededTags } from "./images/stages.ts";

export { DEBIAN_BASE } from "./images/bases.ts";

/** The servers to build: the repository's, or another folder laid out the same way (as the worker's). */
const serversDir = process.env.PERFLAB_SERVERS_DIR ?? path.join(root, "servers");
const args = process.argv.slice(2);
const withApps = args.includes("--apps") || args.includes("--only-apps");
const onlyApps = args.includes("--only-apps");
const names = args.filter((a) => !a.startsWith("--"));

/** Builds each wanted server's image; returns the names of those whose build failed. */
async function serverImages(wanted: (name: string) => boolean): Promise<string[]> {
  const failures: string[] = [];
  for (const server of loadServerCatalog(serversDir)) {
    if (!wanted(server.name)) continue;
    if (server.image) {
      // Registered in its manifest: perflab runs it as it is and builds nothing.
      const present = imageExists(server.image);
      console.log(
        `  skipped server ${server.name}: its perflab.json registers the prebuilt image ${server.image}` +
          (present ? " (on the engine)" : `, which is not on the engine yet: docker pull ${server.image}`),
      );
      continue;
    }
    if (!existsSync(path.join(server.dir, "Dockerfile"))) {
      console.log(`  skipped server ${server.name}: no Dockerfile`);
      continue;
    }
    try {
      await imageFromDir(
        server.dir,
        await serverImageTag(server),
        `server-${server.name}`,
        `server ${server.name}`,
      );
    } catch (error) {
      // One server's broken build must not hide the others: report all, fail at the end.
      console.error(`✗ ${server.name}: ${(error as Error).message}`);
      failures.push(server.name);
    }
  }
  return failures;
}

await mkdir(logDir, { recursive: true });
const started = Date.now();
warnIfEngineDiskLow();
await debianBase();
if (!onlyApps) {
  const wanted = (name: string) => names.length === 0 || names.includes(name);
  if (wanted("k6")) {
    // The load generator's image, for PERFLAB_K6_RUNNER=docker: the pinned k6 with perflab's output.
    const dir = path.join(root, "packages/k6-output");
    await imageFromDir(dir, await k6ImageTag(dir), "k6");
  }
  if (names.includes("backends")) await backendImages();
  if (wanted("fixtures")) {
    const dir = path.join(root, "servers/fixtures");
    const tag = await fixturesImageTag(dir);
    await imageFromDir(dir, tag, "fixtures");
    // docker-compose.yml runs the current fixtures under a fixed name.
    await sh(`docker tag ${tag} perflab/fixtures:latest`, "fixtures-tag");
  }
  const failures = await serverImages(wanted);
  if (failures.length > 0) {
    printSummary();
    process.exit(1);
  }
}
if (withApps) await appImages();
pruneSupersededTags();
printSummary();

function printSummary() {
  for (const r of results) {
    console.log(
      `${r.cached ? "·" : "✓"} ${r.image.padEnd(44)} ${r.cached ? "exists" : `${r.seconds.toFixed(1)} s`}`,
    );
  }
  console.log(`images ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
