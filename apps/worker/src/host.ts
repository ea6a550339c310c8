import { connect, createServer } from "node:net";
import os from "node:os";

export function hostFingerprint(hostId: string) {
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
