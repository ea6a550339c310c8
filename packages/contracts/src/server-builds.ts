import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { processAlive, processStartTime } from "./processes.ts";

/**
 * Server builds in progress on this machine. The quick start serves the dashboard while the slowest
 * servers (Rust's release build) still compile; a cell measured meanwhile would share the CPU with a
 * compiler, so the worker waits while any build runs, and the run form says which.
 *
 * `scripts/build-servers.ts` writes `<name>.building` holding its pid and start time before building
 * a server and removes it after. A marker whose process is gone (a build killed with its terminal,
 * a reboot since) counts as done, even when a new process got the same pid.
 */

/** The repository's .perflab/build folder, found relative to this file so every app agrees on it. */
export const defaultBuildDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../.perflab/build",
);

const SUFFIX = ".building";

export function markBuilding(buildDir: string, name: string, pid: number = process.pid): void {
  writeFileSync(path.join(buildDir, name + SUFFIX), `${pid} ${processStartTime(pid) ?? "?"}\n`);
}

export function unmarkBuilding(buildDir: string, name: string): void {
  rmSync(path.join(buildDir, name + SUFFIX), { force: true });
}

/** The servers being built right now, sorted; none when the folder does not exist. */
export function serversBuilding(buildDir: string = defaultBuildDir): string[] {
  let files: string[];
  try {
    files = readdirSync(buildDir);
  } catch {
    return [];
  }
  const building: string[] = [];
  for (const file of files.sort()) {
    if (!file.endsWith(SUFFIX)) continue;
    let text: string;
    try {
      text = readFileSync(path.join(buildDir, file), "utf8");
    } catch {
      continue; // Removed since the listing: that build just ended.
    }
    const [pidText, start] = text.trim().split(" ");
    const pid = Number(pidText);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid, start && start !== "?" ? start : null))
      building.push(file.slice(0, -SUFFIX.length));
  }
  return building;
}
