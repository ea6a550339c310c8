import os from "node:os";
import { describe, expect, it } from "vitest";
import { engineIsLocal } from "./host.ts";

describe("engineIsLocal", () => {
  it("accepts the default socket, unix sockets and loopback addresses", () => {
    for (const host of [
      "",
      "unix:///var/run/docker.sock",
      "tcp://127.0.0.1:2375",
      "tcp://localhost:2376",
      "tcp://[::1]:2375",
      "ssh://me@127.0.0.1",
    ]) {
      expect(engineIsLocal(host), host).toBe(true);
    }
  });

  it("accepts this machine's own addresses and name", () => {
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
    if (address) expect(engineIsLocal(`tcp://${address}:2375`)).toBe(true);
    expect(engineIsLocal(`ssh://me@${os.hostname()}`)).toBe(true);
  });

  it("refuses an engine on another machine", () => {
    expect(engineIsLocal("tcp://203.0.113.7:2376")).toBe(false);
    expect(engineIsLocal("ssh://lab@docker-box.example.com")).toBe(false);
    expect(engineIsLocal("not a url")).toBe(false);
  });
});
