import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { processGroupReader } from "../proc.ts";
import type { Driver, ExitInfo, RunningServer, StartRequest } from "./types.ts";

const LOG_TAIL_BYTES = 16 * 1024;

/** Keeps the last bytes of a stream, so a chatty server cannot grow the worker's memory. */
export class LogTail {
  private chunks: string[] = [];
  private size = 0;
  push(chunk: string): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > LOG_TAIL_BYTES && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  toString(): string {
    const text = this.chunks.join("");
    return text.length > LOG_TAIL_BYTES ? text.slice(-LOG_TAIL_BYTES) : text;
  }
}

/**
 * Puts the server in a process group of its own (so stop and sampling cover all of it) but keeps it
 * in the worker's session. Node's `detached` would call setsid(), and on Linux every session is a
 * scheduling group of its own (autogroup): the server would then compete with k6 as one group
 * against another for the CPU instead of as processes beside each other, as they do when both are
 * started from one shell. Perl is part of every Debian-like base system.
 */
export const OWN_PROCESS_GROUP = [
  "perl",
  "-e",
  'setpgrp(0, 0) or die "perflab: setpgrp: $!\\n"; exec { $ARGV[0] } @ARGV or die "perflab: cannot start $ARGV[0]: $!\\n"',
  "--",
];

/** Starts the server as a child process in its own process group, so stop and sampling cover all of it. */
export const localDriver: Driver = {
  id: "local",
  async start({ server, port, env }: StartRequest): Promise<RunningServer> {
    const [wrapper, ...args] = [...OWN_PROCESS_GROUP, ...server.start.command];
    const command = server.start.command[0]!;
    const child = spawn(wrapper!, args, {
      cwd: server.dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        ...server.start.env,
        ...env,
        PORT: String(port),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const tail = new LogTail();
    child.stdout.setEncoding("utf8").on("data", (d: string) => tail.push(d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => tail.push(d));
    const startedAt = Date.now();
    const exited = new Promise<ExitInfo>((resolve) => {
      child.once("error", (error) => {
        tail.push(`\n[perflab] failed to start ${command}: ${error.message}\n`);
        resolve({ exitCode: null, signal: null, oomKilled: false });
      });
      child.once("exit", (code, signal) => resolve({ exitCode: code, signal, oomKilled: false }));
    });
    const pgid = child.pid;
    const group = pgid === undefined ? null : processGroupReader(pgid);
    const signalGroup = (signal: NodeJS.Signals) => {
      if (pgid === undefined) return;
      try {
        process.kill(-pgid, signal);
      } catch {
        // The group is gone, or not made yet (the wrapper has not run setpgrp): the process itself.
        child.kill(signal);
      }
    };
    return {
      startedAt,
      exited,
      async resources() {
        return group ? group.read() : null;
      },
      async stop(graceMs) {
        // Dead already, though Node may not have reported it yet: the exit was the server's own.
        // Read before any signal is sent, so whatever exit is seen here came first.
        const zombie = await isZombie(pgid);
        const beforeStop = zombie || child.exitCode !== null || child.signalCode !== null;
        signalGroup("SIGTERM");
        const timer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
        const info = await exited;
        clearTimeout(timer);
        // Children that ignored SIGTERM after the leader exited must not outlive the cell.
        signalGroup("SIGKILL");
        return beforeStop ? { ...info, beforeStop } : info;
      },
      logTail: () => tail.toString(),
    };
  },
};

/** Whether a process has exited and waits to be reaped (state Z in /proc/<pid>/stat). */
async function isZombie(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return false;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
