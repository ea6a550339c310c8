import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { loadServerCatalog, withVariants } from "./server-catalog.ts";

function serversDir(manifests: Record<string, object>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "perflab-catalog-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, manifest] of Object.entries(manifests)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, "perflab.json"), JSON.stringify(manifest));
  }
  return dir;
}

const manifest = (name: string, extra: object = {}) => ({
  name,
  displayName: `${name} server`,
  language: "go",
  runtime: "go 1.26",
  sdk: { name: "sdk", version: "1" },
  build: { command: "true" },
  start: { command: ["./server"], env: { GOGC: "100", MCP_STATELESS: "0" } },
  tools: ["echo"],
  ...extra,
});

describe("server variants", () => {
  it("follow their server, named <server>:<variant>, with the variant's environment over the manifest's", () => {
    const dir = serversDir({
      a: manifest("a", {
        variants: {
          stateless: { displayName: "stateless", description: "No sessions.", env: { MCP_STATELESS: "1" } },
        },
      }),
      b: manifest("b"),
    });
    const servers = withVariants(loadServerCatalog(dir));
    expect(servers.map((s) => [s.name, s.base, s.variant])).toEqual([
      ["a", "a", null],
      ["a:stateless", "a", "stateless"],
      ["b", "b", null],
    ]);
    const variant = servers[1]!;
    expect(variant.displayName).toBe("a server · stateless");
    expect(variant.description).toBe("No sessions.");
    expect(variant.start.env).toEqual({ GOGC: "100", MCP_STATELESS: "1" });
    // Same folder and build: one image and one native build serve both.
    expect(variant.dir).toBe(servers[0]!.dir);
    expect(variant.build).toEqual(servers[0]!.build);
    expect(servers[0]!.start.env.MCP_STATELESS).toBe("0");
  });

  it("are refused with the file named when their id or fields are wrong", () => {
    const bad = serversDir({
      a: manifest("a", { variants: { "Has Space": { displayName: "x", description: "y", env: {} } } }),
    });
    expect(() => loadServerCatalog(bad)).toThrow(/a\/perflab\.json: variants\.Has Space/);
    const extra = serversDir({
      a: manifest("a", { variants: { s: { displayName: "x", description: "y", env: {}, command: ["sh"] } } }),
    });
    expect(() => loadServerCatalog(extra)).toThrow(/variants\.s/);
  });
});

/** A server that ships as a prebuilt image: no build, no start command. */
const registered = (name: string, extra: object = {}) => {
  const { build: _build, start: _start, ...rest } = manifest(name);
  return { ...rest, image: "example.org/acme/mcp:1.0", ...extra };
};

describe("a registered image", () => {
  it("needs no build or start command: nothing is built natively and no process can start it", () => {
    const [server] = loadServerCatalog(serversDir({ a: registered("a") }));
    expect(server!.image).toBe("example.org/acme/mcp:1.0");
    expect(server!.build).toEqual({ command: "true", inputs: [] });
    expect(server!.start).toEqual({ command: [], env: {} });
    // A start command given beside it is kept for the local driver.
    const [both] = loadServerCatalog(
      serversDir({ a: registered("a", { start: { command: ["./server"] } }) }),
    );
    expect(both!.start.command).toEqual(["./server"]);
  });

  it("is refused naming the field when it is not an image reference with a tag or digest", () => {
    expect(() => loadServerCatalog(serversDir({ a: registered("a", { image: "Not An Image" }) }))).toThrow(
      /a\/perflab\.json: image: a Docker image reference/,
    );
    expect(() =>
      loadServerCatalog(serversDir({ a: registered("a", { image: "example.org/acme/mcp" }) })),
    ).toThrow(/image: must name a tag or digest/);
    // A registry's port is not a tag.
    expect(() =>
      loadServerCatalog(serversDir({ a: registered("a", { image: "localhost:5000/mcp" }) })),
    ).toThrow(/image: must name a tag or digest/);
    const digest = `ghcr.io/acme/mcp@sha256:${"0".repeat(64)}`;
    expect(loadServerCatalog(serversDir({ a: registered("a", { image: digest }) }))[0]!.image).toBe(digest);
  });

  it("and a Dockerfile in the same folder are refused: one image per server", () => {
    const dir = serversDir({ a: registered("a") });
    writeFileSync(path.join(dir, "a", "Dockerfile"), "FROM scratch\n");
    expect(() => loadServerCatalog(dir)).toThrow(/a\/perflab\.json: image: .*also has a Dockerfile/);
  });
});

describe("manifest fields", () => {
  it("without an image, build and start.command are required, each named", () => {
    const { build: _build, start: _start, ...bare } = manifest("a");
    expect(() => loadServerCatalog(serversDir({ a: bare }))).toThrow(
      /build: required unless `image` registers a prebuilt image; start\.command: required unless/,
    );
  });

  it("unknown fields are refused by name, not ignored", () => {
    expect(() => loadServerCatalog(serversDir({ a: manifest("a", { imgae: "x/y:1" }) }))).toThrow(
      /a\/perflab\.json: Unrecognized key: "imgae"/,
    );
  });

  it("test is the folder's own suite: a command, nothing else", () => {
    const [server] = loadServerCatalog(
      serversDir({ a: manifest("a", { test: { command: "go test ./..." } }) }),
    );
    expect(server!.test).toEqual({ command: "go test ./..." });
    expect(loadServerCatalog(serversDir({ a: manifest("a") }))[0]!.test).toBeUndefined();
    expect(() => loadServerCatalog(serversDir({ a: manifest("a", { test: { command: "" } }) }))).toThrow(
      /test\.command: /,
    );
    expect(() =>
      loadServerCatalog(serversDir({ a: manifest("a", { test: { command: "x", setup: "y" } }) })),
    ).toThrow(/test: Unrecognized key: "setup"/);
  });
});

describe("container settings", () => {
  it("default to nothing relaxed, and take a writable root and capabilities a runtime needs", () => {
    expect(loadServerCatalog(serversDir({ a: registered("a") }))[0]!.container).toBeUndefined();
    const [server] = loadServerCatalog(
      serversDir({ a: registered("a", { container: { capabilities: ["NET_BIND_SERVICE"] } }) }),
    );
    expect(server!.container).toEqual({ writableRoot: false, capabilities: ["NET_BIND_SERVICE"] });
  });

  it("refuse, naming the field, a capability that reaches the host or lifts the cell's limits", () => {
    for (const capability of ["SYS_ADMIN", "SYS_RESOURCE", "NET_ADMIN", "ALL"]) {
      expect(() =>
        loadServerCatalog(serversDir({ a: registered("a", { container: { capabilities: [capability] } }) })),
      ).toThrow(/a\/perflab\.json: container\.capabilities\.0: /);
    }
    expect(() =>
      loadServerCatalog(serversDir({ a: registered("a", { container: { privileged: true } }) })),
    ).toThrow(/container: Unrecognized key: "privileged"/);
  });
});

describe("the repository's servers", () => {
  it("all load, and those with a test command name it", () => {
    const servers = loadServerCatalog();
    expect(servers.length).toBeGreaterThanOrEqual(6);
    for (const s of servers.filter((s) => s.test)) expect(s.test!.command.length).toBeGreaterThan(0);
    expect(servers.find((s) => s.name === "go")!.test).toEqual({
      command: "go test ./... && go -C ../go-common test ./...",
    });
  });
});

it("a manifest that is not JSON is an error naming its file", () => {
  const dir = serversDir({ a: manifest("a") });
  writeFileSync(path.join(dir, "a", "perflab.json"), '{"name": "a",');
  expect(() => loadServerCatalog(dir)).toThrow(/a\/perflab\.json: not valid JSON: /);
});
