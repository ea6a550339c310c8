import { describe, expect, it } from "vitest";
import { dockerAt } from "./docker-engine.ts";
import { engineFingerprint } from "./probe.ts";

describe("engineFingerprint", () => {
  const info = {
    ID: "3X2R:IO5H",
    Name: "lab-2",
    NCPU: 16,
    MemTotal: 64 * 2 ** 30,
    KernelVersion: "6.1.0-18-amd64",
    Architecture: "x86_64",
    OSType: "linux",
  };

  it("names the engine's machine, never a worker's host id, in the worker's own terms", () => {
    expect(engineFingerprint(info, "AMD EPYC 7763 64-Core Processor")).toEqual({
      hostId: "engine:3X2R:IO5H",
      hostname: "lab-2",
      cpuModel: "AMD EPYC 7763 64-Core Processor",
      cores: 16,
      kernel: "Linux 6.1.0-18-amd64",
      arch: "x64",
      memoryBytes: 64 * 2 ** 30,
    });
  });

  it("says when the probe could not read the CPU model, and keeps unknown architectures", () => {
    const fingerprint = engineFingerprint({ ...info, Architecture: "riscv64" }, null);
    expect(fingerprint.cpuModel).toBe("unknown");
    expect(fingerprint.arch).toBe("riscv64");
    expect(engineFingerprint({ ...info, Architecture: "aarch64" }, null).arch).toBe("arm64");
  });
});

describe("dockerAt", () => {
  it("connects to a tcp engine by host and port, and a unix one by its socket", () => {
    const tcp = dockerAt("tcp://10.211.0.2:2375").modem as { host?: string; port?: number };
    expect([tcp.host, Number(tcp.port)]).toEqual(["10.211.0.2", 2375]);
    const unix = dockerAt("unix:///tmp/engine.sock").modem as { socketPath?: string };
    expect(unix.socketPath).toBe("/tmp/engine.sock");
  });
});
