import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { sourceHash } from "./image-tags.ts";

describe("sourceHash", () => {
  async function repo(dockerfile: string) {
    const root = await mkdtemp(path.join(os.tmpdir(), "perflab-hash-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    await mkdir(path.join(root, "servers/x/src"), { recursive: true });
    await mkdir(path.join(root, "servers/contract"), { recursive: true });
    await writeFile(path.join(root, "servers/x/Dockerfile"), dockerfile);
    await writeFile(path.join(root, "servers/x/src/main.ts"), "console.log(1)");
    await writeFile(path.join(root, "servers/contract/schema.json"), "{}");
    await writeFile(path.join(root, "pnpm-lock.yaml"), "lockfileVersion: 9");
    return { root, dir: path.join(root, "servers/x") };
  }
  const rootDockerfile = [
    "# Build context: the repository root",
    "FROM node AS build",
    "COPY pnpm-lock.yaml ./",
    "COPY --chown=1:1 servers/x/ servers/x/",
    "FROM node",
    "COPY --from=build /out/ ./",
    "COPY servers/contract/ /app/servers/contract/",
  ].join("\n");

  it("changes with any repository file a root-context Dockerfile copies", async () => {
    const { root, dir } = await repo(rootDockerfile);
    const first = await sourceHash(dir, ["src/**/*.ts"]);
    expect(await sourceHash(dir, ["src/**/*.ts"])).toBe(first);
    await writeFile(path.join(root, "pnpm-lock.yaml"), "lockfileVersion: 10");
    const second = await sourceHash(dir, ["src/**/*.ts"]);
    expect(second).not.toBe(first);
    await writeFile(path.join(root, "servers/contract/schema.json"), '{"type":"object"}');
    expect(await sourceHash(dir, ["src/**/*.ts"])).not.toBe(second);
  });

  it("ignores build tools' state in the folders a root-context Dockerfile copies", async () => {
    const { dir } = await repo(rootDockerfile);
    const first = await sourceHash(dir, ["src/**/*.ts"]);
    await mkdir(path.join(dir, ".turbo"), { recursive: true });
    await writeFile(path.join(dir, ".turbo/turbo-build.log"), `build at ${Date.now()}`);
    await writeFile(path.join(dir, "tsconfig.tsbuildinfo"), "{}");
    expect(await sourceHash(dir, ["src/**/*.ts"])).toBe(first);
  });

  it("ignores the rest of the repository for a Dockerfile built from its own folder", async () => {
    const { root, dir } = await repo("FROM golang\nCOPY . .\n");
    const first = await sourceHash(dir, ["src/**/*.ts"]);
    await writeFile(path.join(root, "pnpm-lock.yaml"), "lockfileVersion: 10");
    expect(await sourceHash(dir, ["src/**/*.ts"])).toBe(first);
    await writeFile(path.join(dir, "src/main.ts"), "console.log(2)");
    expect(await sourceHash(dir, ["src/**/*.ts"])).not.toBe(first);
  });

  it("keeps the image when only the manifest's variants change, not when its start does", async () => {
    const { dir } = await repo("FROM golang\nCOPY . .\n");
    const manifest = { name: "x", start: { command: ["./x"], env: {} }, variants: {} };
    await writeFile(path.join(dir, "perflab.json"), JSON.stringify(manifest));
    const first = await sourceHash(dir, []);
    const stateless = { displayName: "s", description: "d", env: { MCP_STATELESS: "1" } };
    await writeFile(
      path.join(dir, "perflab.json"),
      JSON.stringify({ ...manifest, variants: { stateless } }, null, 2),
    );
    expect(await sourceHash(dir, [])).toBe(first);
    await writeFile(
      path.join(dir, "perflab.json"),
      JSON.stringify({ ...manifest, start: { command: ["./y"], env: {} } }),
    );
    expect(await sourceHash(dir, [])).not.toBe(first);
  });
});
