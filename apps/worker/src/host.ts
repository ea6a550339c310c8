import { connect, createServer } from "node:net";
import os from "node:os";
import type { HostFingerprint } from "./drivers/types.ts";

export function hostFingerprint(hostId: string): HostFingerprint {
  const cpus = os.cpus();
  return {
    hostId,
    hostname: os.hostname(),
    cpuModel: cpus[0]?.model ?? "unknown",
    cores: os.availableParallelism(),
    kernel: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    memoryBytes: os.totalmem(),
  };
}

/** A free TCP port on 127.0.0.1 (load traffic never leaves loopback). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Waits until something accepts TCP connections on 127.0.0.1:port; `isDead` aborts early with its reason. */
export async function waitForPort(
  port: number,
  timeoutMs: number,
  isDead?: () => string | null,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = isDead?.();
    if (dead) throw new Error(dead);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
}

/**
 * Whether the Docker engine at `dockerHost` (DOCKER_HOST; empty for the default socket) runs on
 * this machine. Containers use host networking and bind 127.0.0.1, so the worker's health wait,
 * runtime polling, local k6 and fixtures reach a container's server only on the engine's own
 * loopback: a unix socket, or tcp/ssh to a loopback or to one of this machine's own addresses.
 */
export function engineIsLocal(dockerHost: string): boolean {
  if (!dockerHost || dockerHost.startsWith("unix://") || dockerHost.startsWith("npipe://")) return true;
  let host: string;
  try {
    host = new URL(dockerHost).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || host === "::1" || /^127\./.test(host)) return true;
  const own = Object.values(os.networkInterfaces())
    .flat()
    .map((i) => i?.address);
  return own.includes(host) || host === os.hostname();
}
