import { readFile } from "node:fs/promises";
import os from "node:os";
import { PassThrough, type Readable } from "node:stream";
import type Docker from "dockerode";
import { ENGINE_CALL_MS, isStatus, within } from "./docker-engine.ts";
import type { LogTail } from "./local.ts";
import type { ExitInfo } from "./types.ts";

/** Docker reports a signal death as exit code 128 + signal number. */
export function exitInfoFromState(state: { ExitCode?: number; OOMKilled?: boolean }): ExitInfo {
  const code = state.ExitCode ?? null;
  let signal: string | null = null;
  if (code !== null && code > 128) {
    const entry = Object.entries(os.constants.signals).find(([, n]) => n === code - 128);
    signal = entry?.[0] ?? null;
  }
  return { exitCode: code, signal, oomKilled: state.OOMKilled === true };
}

/** How long a container's wait may keep failing while the engine cannot say whether it runs. */
const WAIT_OUTAGE_MS = 60_000;

/**
 * Resolves when the container is no longer running. A wait whose connection drops (the engine
 * restarted with live-restore, a remote engine's connection was reset) says nothing about the
 * container: its state is asked, and a container still running is waited for again, so a dropped
 * connection is not taken for the server's exit. Rejects once the engine has not answered for
 * WAIT_OUTAGE_MS.
 */
export async function waitForStop(container: Docker.Container, tail: LogTail): Promise<void> {
  let failingSince: number | null = null;
  // Said once: a proxy that cuts idle connections would otherwise fill the tail, the server's own
  // lines pushed out of it, over a long cell.
  let said = false;
  for (;;) {
    try {
      await container.wait({ condition: "not-running" });
      return;
    } catch (error) {
      failingSince ??= Date.now();
      // null: the engine did not answer; "gone": the container was removed, so it runs no more.
      const state = await within(container.inspect(), ENGINE_CALL_MS).then(
        (info) => info.State,
        (inspectError: unknown) => (isStatus(inspectError, 404) ? ("gone" as const) : null),
      );
      if (state === "gone" || (state && !state.Running)) return;
      if (state) failingSince = null;
      else if (Date.now() - failingSince >= WAIT_OUTAGE_MS) throw error;
      if (!said) {
        said = true;
        tail.push(
          `\n[perflab] the engine's wait for container ${container.id} broke off (${(error as Error).message}); ${state ? "it still runs: waiting again" : "asking again"} (said once)\n`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** The kernel's count of OOM kills in any cgroup since boot, or null where /proc/vmstat cannot say. */
export async function hostOomKills(): Promise<number | null> {
  try {
    const match = /^oom_kill (\d+)$/m.exec(await readFile("/proc/vmstat", "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Follows the container's output (stdout and stderr are multiplexed without a TTY) into the tail until
 * the stream ends with the container; rejects when the stream cannot be opened or breaks.
 */
export async function followLogs(docker: Docker, container: Docker.Container, tail: LogTail): Promise<void> {
  const stream = (await container.logs({
    follow: true,
    stdout: true,
    stderr: true,
  })) as unknown as Readable;
  const out = new PassThrough();
  out.setEncoding("utf8").on("data", (d: string) => tail.push(d));
  docker.modem.demuxStream(stream, out, out);
  await new Promise<void>((resolve, reject) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    // Kept on: a later error with no listener would be thrown.
    stream.on("error", reject);
  });
}
