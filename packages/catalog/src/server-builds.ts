import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * A server whose last build failed: `scripts/build-servers.ts` writes `<name>.failed` with one line
 * saying why (exit status, log) and removes it once the server builds. The worker fails a local cell
 * of that server with this line instead of starting a stale or missing binary; the run form names it.
 */
const FAILED_SUFFIX = ".failed";

export function markBuildFailed(buildDir: string, name: string, reason: string): void {
  writeFileSync(path.join(buildDir, name + FAILED_SUFFIX), `${reason.split("\n")[0]}\n`);
}

export function unmarkBuildFailed(buildDir: string, name: string): void {
  rmSync(path.join(buildDir, name + FAILED_SUFFIX), { force: true });
}

/** Why the server's last build failed, or null when it did not (or never ran here). */
export function serverBuildFailure(buildDir: string, name: string): string | null {
  try {
    return readFileSync(path.join(buildDir, name + FAILED_SUFFIX), "utf8").trim() || null;
  } catch {
    return null;
  }
}

/** Every server whose last build failed, sorted by name. */
export function serverBuildFailures(buildDir: string = defaultBuildDir): { name: string; reason: string }[] {
  let files: string[];
  try {
    files = readdirSync(buildDir);
  } catch {
    return [];
  }
  return files
    .filter((f) => f.endsWith(FAILED_SUFFIX))
    .sort()
    .flatMap((f) => {
      const name = f.slice(0, -FAILED_SUFFIX.length);
      const reason = serverBuildFailure(buildDir, name);
      return reason ? [{ name, reason }] : [];
    });
}

/**
 * How long a server's last successful build took on this machine: `scripts/build-servers.ts` writes
 * `<name>.seconds` beside the stamp. Measured rather than declared in the manifest, since the same
 * build takes two to three times as long on one 2-core VM as on another, and with a cold cache.
 */
const SECONDS_SUFFIX = ".seconds";

export function recordBuildSeconds(buildDir: string, name: string, seconds: number): void {
  writeFileSync(path.join(buildDir, name + SECONDS_SUFFIX), `${seconds.toFixed(1)}\n`);
}

export function lastBuildSeconds(buildDir: string, name: string): number | null {
  try {
    const seconds = Number(readFileSync(path.join(buildDir, name + SECONDS_SUFFIX), "utf8").trim());
    return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
  } catch {
    return null;
  }
}

export type ServerBuildState = {
  /** `built`: a build succeeded here (its stamp exists); `building` and `failed` as the markers say. */
  state: "built" | "building" | "failed" | "not built";
  /** The last successful build's duration here, in seconds; null before the first one. */
  lastSeconds: number | null;
};

/** The native build state of each named server on this machine, for the run form. */
export function serverBuildStates(
  names: string[],
  buildDir: string = defaultBuildDir,
): Record<string, ServerBuildState> {
  const building = new Set(serversBuilding(buildDir));
  return Object.fromEntries(
    names.map((name): [string, ServerBuildState] => {
      const state = building.has(name)
        ? "building"
        : serverBuildFailure(buildDir, name)
          ? "failed"
          : existsSync(path.join(buildDir, `${name}.sha256`))
            ? "built"
            : "not built";
      return [name, { state, lastSeconds: lastBuildSeconds(buildDir, name) }];
    }),
  );
}
