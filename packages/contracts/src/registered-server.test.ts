import { describe, expect, it } from "vitest";
import { fieldErrors } from "./problem.ts";
import { ZRegisteredServerInput } from "./registered-server.ts";

const identity = {
  name: "mine",
  displayName: "Mine",
  language: "go",
  runtime: "go 1.26",
  sdk: { name: "github.com/modelcontextprotocol/go-sdk", version: "v1.8.0" },
};
const problems = (input: object) => {
  const parsed = ZRegisteredServerInput.safeParse({ ...identity, ...input });
  return parsed.success ? [] : fieldErrors(parsed.error).map((e) => `${e.field}: ${e.message}`);
};

describe("a registered server's definition", () => {
  it("fills the paths, tools and environment a manifest would", () => {
    const parsed = ZRegisteredServerInput.parse({ ...identity, kind: "image", image: "acme/mcp:1" });
    expect(parsed).toMatchObject({ mcpPath: "/mcp", healthPath: "/health", tools: [], env: {} });
    expect(parsed.protocols).toEqual(["mcp", "http"]);
  });

  it("takes an endpoint on the loopback only, with its port, naming one reason", () => {
    expect(problems({ kind: "endpoint", url: "http://127.0.0.1:8080" })).toEqual([]);
    expect(
      problems({
        kind: "endpoint",
        url: "http://localhost:8080",
        runtimeUrl: "http://127.0.0.1:8080/debug/runtime",
      }),
    ).toEqual([]);
    expect(problems({ kind: "endpoint", url: "not a url" })).toEqual(["url: an http:// URL"]);
    expect(problems({ kind: "endpoint", url: "ftp://127.0.0.1:21" })).toEqual(["url: an http:// URL"]);
    expect(problems({ kind: "endpoint", url: "http://10.0.0.8:8080" })).toEqual([
      "url: must be on this machine's loopback (127.0.0.1, localhost, [::1]): load traffic never leaves it",
    ]);
    expect(problems({ kind: "endpoint", url: "http://127.0.0.1" })).toEqual([
      "url: name the port (http://127.0.0.1:<port>)",
    ]);
  });

  it("names the field of each kind that is wrong, and refuses fields of another kind", () => {
    expect(problems({ kind: "image", image: "acme/mcp" })[0]).toMatch(/^image: must name a tag or digest/);
    expect(problems({ kind: "command", command: [] })).toEqual([
      "command: name the program and its arguments",
    ]);
    expect(problems({ kind: "command", command: ["./server"], cwd: "relative" })).toEqual([
      "cwd: an absolute path on the worker's machine",
    ]);
    expect(problems({ kind: "endpoint", url: "http://127.0.0.1:1", image: "acme/mcp:1" })).toEqual([
      "image: is not a known field",
    ]);
    expect(problems({ kind: "image", image: "acme/mcp:1", env: { "NOT OK": "x" } })[0]).toMatch(/^env/);
    expect(problems({ kind: "vm" })[0]).toMatch(/^kind: must be one of "image", "command", "endpoint"/);
  });
});
