import { describe, expect, it } from "vitest";
import { registeredEntry } from "./registered.ts";

const identity = {
  name: "mine",
  displayName: "Mine",
  language: "go",
  runtime: "go 1.26",
  sdk: { name: "github.com/modelcontextprotocol/go-sdk", version: "v1.8.0" },
};

describe("a registered server as a catalog entry", () => {
  it("runs an image with nothing to build or start, its environment and port as declared", () => {
    const entry = registeredEntry({
      id: "d1",
      manifest: { ...identity, kind: "image", image: "acme/mcp:1", port: 9000, env: { MODE: "fast" } },
    });
    expect(entry).toMatchObject({
      name: "mine",
      base: "mine",
      variant: null,
      image: "acme/mcp:1",
      build: { command: "true", inputs: [] },
      start: { command: [], env: { MODE: "fast" } },
      registered: { id: "d1", kind: "image", port: 9000, url: null, runtimeUrl: null },
    });
  });

  it("starts a command in its folder, and reaches an endpoint at its URL's port", () => {
    const command = registeredEntry({
      id: "d2",
      manifest: { ...identity, kind: "command", command: ["./server", "--fast"], cwd: "/opt/mine" },
    });
    expect(command).toMatchObject({ dir: "/opt/mine", start: { command: ["./server", "--fast"] } });
    expect(command.registered).toMatchObject({ kind: "command", port: null });
    const endpoint = registeredEntry({
      id: "d3",
      manifest: {
        ...identity,
        kind: "endpoint",
        url: "http://localhost:8080/",
        runtimeUrl: "http://127.0.0.1:8080/rt",
      },
    });
    expect(endpoint.start.command).toEqual([]);
    expect(endpoint.registered).toEqual({
      id: "d3",
      kind: "endpoint",
      port: 8080,
      url: "http://localhost:8080",
      runtimeUrl: "http://127.0.0.1:8080/rt",
    });
  });

  it("names the field of a stored definition that no longer reads", () => {
    expect(() => registeredEntry({ id: "d4", manifest: { ...identity, kind: "image" } })).toThrow(
      /^registered server d4: image: /,
    );
  });
});
