/** The Docker engine as the image builds use it: shell commands logged to files, tags and labels. */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statfsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../../..");
export const logDir = path.join(root, ".perflab/docker-build");

type Result = { image: string; seconds: number; cached: boolean };
export const results: Result[] = [];

export function sh(command: string, logName: string): Promise<void> {
  const logFile = path.join(logDir, `${logName}.log`);
  return new Promise((resolve, reject) => {
    // The classic builder: it resolves FROM against local images without asking a registry.
    const child = spawn("bash", ["-o", "pipefail", "-c", `(${command}) > ${JSON.stringify(logFile)} 2>&1`], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, DOCKER_BUILDKIT: "0" },
    });
    child.on("exit", async (code) => {
      if (code === 0) return resolve();
      const log = await readFile(logFile, "utf8").catch(() => "");
      reject(
        new Error(
          `${logName} failed (exit ${code}); log ${logFile}:\n${log.split("\n").slice(-25).join("\n")}`,
        ),
      );
    });
  });
}

export const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

export const INPUTS_LABEL = "perflab.inputs";

/** The content id a tag names on the engine, or undefined. */
function imageId(tag: string): string | undefined {
  const inspect = spawnSync("docker", ["image", "inspect", "-f", "{{.Id}}", tag], { encoding: "utf8" });
  return inspect.status === 0 ? inspect.stdout.trim() : undefined;
}

/** `docker image rm` without force: an image a container uses, or another tag names, stays. */
export function removeImages(refs: string[]): string[] {
  const removed: string[] = [];
  for (const ref of refs) {
    if (spawnSync("docker", ["image", "rm", ref], { encoding: "utf8" }).status === 0) removed.push(ref);
  }
  return removed;
}

/**
 * Images tagged by a hash of their sources (servers, fixtures, k6) carry the checkout that built them,
 * so a rebuild after a source change removes the tags this checkout built before, and only those: another
 * checkout on the same engine keeps its own.
 */
export const CHECKOUT_LABEL = "perflab.checkout";
export const hashTagged = new Set<string>();

/**
 * The images take several GB (the app image alone 1.8 GB, streamed to the engine first), and a build
 * that runs out of space fails deep inside docker with "no space left on device": say so up front.
 */
export function warnIfEngineDiskLow(): void {
  if (process.env.DOCKER_HOST && !process.env.DOCKER_HOST.startsWith("unix://")) return;
  const dir = output("docker", ["info", "-f", "{{.DockerRootDir}}"]);
  if (!dir || !existsSync(dir)) return;
  const stats = statfsSync(dir);
  const freeGiB = (stats.bavail * stats.bsize) / 1024 ** 3;
  if (freeGiB >= LOW_DISK_GIB) return;
  console.warn(
    `  warning: the Docker engine's disk (${dir}) has ${freeGiB.toFixed(1)} GiB free; perflab's images ` +
      `can need ${LOW_DISK_GIB} GiB while they build. Untagged images free space: docker image prune`,
  );
}
const LOW_DISK_GIB = 8;

/** With `inputs`, an image counts only if its perflab.inputs label matches (it was built from them). */
export function imageExists(tag: string, inputs?: string): boolean {
  const format = `{{index .Config.Labels "${INPUTS_LABEL}"}}`;
  const inspect = spawnSync("docker", ["image", "inspect", "-f", format, tag], { encoding: "utf8" });
  return inspect.status === 0 && (inputs === undefined || inspect.stdout.trim() === inputs);
}

export async function once(
  image: string,
  logName: string,
  build: () => Promise<void>,
  inputs?: string,
): Promise<void> {
  if (results.some((r) => r.image === image)) return;
  if (imageExists(image, inputs)) {
    results.push({ image, seconds: 0, cached: true });
    return;
  }
  const before = imageId(image);
  const started = Date.now();
  await build();
  const seconds = (Date.now() - started) / 1000;
  results.push({ image, seconds, cached: false });
  // Rebuilt under the same tag (new inputs): the image it replaced is untagged now, and would stay on
  // the engine for good (the app image is 1.8 GB). Removal fails harmlessly while a container uses it.
  const after = imageId(image);
  if (before && after && before !== after) removeImages([before]);
  console.log(`  built ${image} in ${seconds.toFixed(1)} s (log: .perflab/docker-build/${logName}.log)`);
}

export const output = (cmd: string, cmdArgs: string[]) =>
  spawnSync(cmd, cmdArgs, { encoding: "utf8" }).stdout.trim();
