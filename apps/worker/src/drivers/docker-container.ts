import type Docker from "dockerode";
import { ENGINE_CALL_MS, isStatus, within } from "./docker-engine.ts";
import { exitInfoFromState, followLogs, hostOomKills, waitForStop } from "./docker-exit.ts";
import { containerFdsReader } from "./docker-fds.ts";
import { watchStats } from "./docker-stats.ts";
import type { LogTail } from "./local.ts";
import type { ExitInfo, RunningServer, ServerObserver } from "./types.ts";

type Started = {
  docker: Docker;
  container: Docker.Container;
  tail: LogTail;
  /** The kernel's OOM kill count before the start, when the engine runs on this kernel. */
  oomKillsBefore: number | null;
  /** The engine runs on this kernel: the container's processes are in this machine's /proc. */
  localEngine: boolean;
  exitTimeoutMs: number | undefined;
  observer: ServerObserver | null;
};

/** A started server container: its exit, resources, stop and log, however the engine behaves. */
export function runningContainer(
  started: Started,
): Pick<RunningServer, "exited" | "resources" | "stop" | "logTail"> {
  const { container, tail } = started;
  let stopRequestedAt: number | null = null;
  const exit = containerExit(started, () => stopRequestedAt);
  const stats = watchStats(container);
  const fds = started.localEngine ? containerFdsReader(container) : null;
  let stopping: Promise<ExitInfo> | null = null;
  return {
    exited: exit.exited,
    async resources(options) {
      const reading = await stats.latest(options);
      return reading && fds ? { ...reading, fds: await fds() } : reading;
    },
    stop(graceMs) {
      stopRequestedAt ??= Date.now();
      stopping ??= (async () => {
        try {
          return await stopContainer(container, tail, graceMs, () => exitAfterStop(started, exit));
        } finally {
          stats.close();
          await started.observer?.close();
        }
      })();
      return stopping;
    },
    logTail: () => tail.toString(),
  };
}

type Exit = { exited: Promise<ExitInfo>; settle: (info: ExitInfo) => void };

/**
 * Settled by the engine's report of the exit, or by stop() from the container's state when that
 * report did not come (a dropped wait connection): whichever is first.
 */
function containerExit(started: Started, stopRequestedAt: () => number | null): Exit {
  const { docker, container, tail, oomKillsBefore } = started;
  // After start, "not-running" resolves at the exit, or at once if the server already exited
  // (a wait sent before start could reach the engine after a very fast exit and never resolve).
  const waited = waitForStop(container, tail);
  // The stream can fail while the server runs (the engine restarted, a remote engine's connection
  // was reset): noted in the tail, never an unhandled rejection that would end the worker.
  const logsDone = followLogs(docker, container, tail).catch((error: Error) => {
    tail.push(`\n[perflab] log stream failed: ${error.message}\n`);
  });
  let settle!: (info: ExitInfo) => void;
  const exited = new Promise<ExitInfo>((resolve) => {
    settle = resolve;
  });
  waited
    .then(async () => {
      // The log stream ends with the container; give it a moment to deliver the last lines.
      await Promise.race([logsDone, new Promise((r) => setTimeout(r, 1_000))]);
      const state = (await container.inspect()).State;
      const info = exitInfoFromState(state);
      if (info.oomKilled || info.signal !== "SIGKILL" || oomKillsBefore === null) return info;
      // A SIGKILL perflab did not send (the container ended before stop() was asked), while the
      // kernel OOM-killed something: that kill was this container's.
      const finishedAt = Date.parse(state.FinishedAt ?? "");
      const stopAt = stopRequestedAt();
      if (stopAt !== null && !(finishedAt < stopAt)) return info;
      const oomKillsNow = await hostOomKills();
      return oomKillsNow !== null && oomKillsNow > oomKillsBefore ? { ...info, oomKilled: true } : info;
    })
    .catch((error: Error): ExitInfo => {
      tail.push(`\n[perflab] lost track of container ${container.id}: ${error.message}\n`);
      return { exitCode: null, signal: null, oomKilled: false };
    })
    .then(settle);
  return { exited, settle };
}

/** The exit once the container was stopped or killed: the engine's report, or else its state. */
async function exitAfterStop(started: Started, exit: Exit): Promise<ExitInfo> {
  const { container, tail } = started;
  const timeoutMs = started.exitTimeoutMs ?? ENGINE_CALL_MS;
  const reported = await within(exit.exited, timeoutMs).catch(() => null);
  if (reported) return reported;
  let info: ExitInfo = { exitCode: null, signal: null, oomKilled: false };
  try {
    const { State: state } = await within(container.inspect(), ENGINE_CALL_MS);
    if (state.Running) {
      tail.push(`\n[perflab] container ${container.id} still runs after its stop: removing it\n`);
    } else {
      info = exitInfoFromState(state);
      tail.push(
        `\n[perflab] the engine did not report the exit of container ${container.id} within ${timeoutMs} ms: read it from its state\n`,
      );
    }
  } catch (error) {
    tail.push(`\n[perflab] lost track of container ${container.id}: ${(error as Error).message}\n`);
  }
  exit.settle(info);
  return info;
}

/** SIGTERM with the grace, SIGKILL if the engine failed that, then removal; failures are named. */
async function stopContainer(
  container: Docker.Container,
  tail: LogTail,
  graceMs: number,
  exitAfterStop: () => Promise<ExitInfo>,
): Promise<ExitInfo> {
  const id = container.id;
  const graceSeconds = Math.max(1, Math.ceil(graceMs / 1000));
  let stopFailed: Error | null = null;
  // The engine's word that the container had stopped before this stop: its own exit.
  let beforeStop = false;
  try {
    await within(container.stop({ t: graceSeconds }), graceSeconds * 1000 + ENGINE_CALL_MS);
  } catch (error) {
    // 304: already stopped; 404: already gone.
    if (isStatus(error, 304)) beforeStop = true;
    else if (!isStatus(error, 404)) stopFailed = error as Error;
  }
  if (stopFailed) {
    // Left running, it would keep this live worker's labels (never an orphan) and share the
    // machine with every later cell.
    tail.push(`\n[perflab] stopping container ${id} failed (${stopFailed.message}): killing it\n`);
    await within(container.kill({ signal: "SIGKILL" }), ENGINE_CALL_MS).catch((error) => {
      if (!isStatus(error, 404, 409))
        tail.push(`\n[perflab] killing container ${id} failed: ${(error as Error).message}\n`);
    });
  }
  const info = await exitAfterStop();
  // 404: already gone; 409: its removal is already under way.
  const removeFailed = await within(container.remove({ force: true, v: true }), ENGINE_CALL_MS).then(
    () => null,
    (error: Error) => (isStatus(error, 404, 409) ? null : error),
  );
  if (removeFailed) {
    const removal = `removing container ${id} failed: ${removeFailed.message}`;
    throw new Error(
      stopFailed ? `stopping container ${id} failed: ${stopFailed.message}; ${removal}` : removal,
    );
  }
  if (stopFailed)
    throw new Error(`stopping container ${id} failed: ${stopFailed.message} (killed and removed it instead)`);
  return beforeStop ? { ...info, beforeStop } : info;
}
