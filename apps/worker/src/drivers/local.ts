import { spawn } from "node:child_process";
import { processGroupResources } from "../proc.ts";
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

/** Starts the server as a child process in its own process group, so stop and sampling cover all of it. */
export const localDriver: Driver = {
  id: "local",
  async start({ server, port, env }: StartRequest): Promise<RunningServer> {
    const [command, ...args] = server.start.command;
    const child = spawn(command!, args, {
      cwd: server.dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        ...server.start.env,
        ...env,
        PORT: String(port),
      },
      detached: true,
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
    const signalGroup = (signal: NodeJS.Signals) => {
      if (pgid === undefined) return;
      try {
        process.kill(-pgid, signal);
      } catch {
        // The group is already gone.
      }
    };
    return {
      startedAt,
      exited,
      async resources() {
        return pgid === undefined ? null : processGroupResources(pgid);
      },
      async stop(graceMs) {
        signalGroup("SIGTERM");
        const timer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
        const info = await exited;
        clearTimeout(timer);
        // Children that ignored SIGTERM after the leader exited must not outlive the cell.
        signalGroup("SIGKILL");
        return info;
      },
      logTail: () => tail.toString(),
    };
  },
};
