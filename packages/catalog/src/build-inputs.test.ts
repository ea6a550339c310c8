import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { buildInputFiles, nativeBuildHash } from "./build-inputs.ts";
import { sourceHash } from "./image-tags.ts";

/** servers/a and servers/b build in servers/shared; links/ holds links to the servers, as the tests' folder. */
async function serversWithSharedCode() {
  const root = await mkdtemp(path.join(os.tmpdir(), "perflab-inputs-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  for (const dir of ["servers/a/bin", "servers/b", "servers/shared/probe", "links"])
    await mkdir(path.join(root, dir), { recursive: true });
  for (const name of ["a", "b"]) {
    await writeFile(path.join(root, `servers/${name}/main.go`), `package main // ${name}`);
    await writeFile(path.join(root, `servers/${name}/Dockerfile`), "FROM golang\nCOPY . .\n");
    await symlink(path.join(root, "servers", name), path.join(root, "links", name));
  }
  await writeFile(path.join(root, "servers/a/bin/server"), "binary");
  await writeFile(path.join(root, "servers/shared/go.mod"), "module shared");
  await writeFile(path.join(root, "servers/shared/probe/probe.go"), "package probe");
  return { root, dir: (name: string) => path.join(root, "servers", name) };
}

const inputs = ["**/*.go", "../shared/**"];
const server = (dir: string) => ({ dir, build: { command: "./build.sh", inputs } });

describe("build inputs", () => {
  it("include the files of a folder beside the server that its inputs name, build output excluded", async () => {
    const { dir } = await serversWithSharedCode();
    const { files } = await buildInputFiles(dir("a"), inputs, { ignore: ["bin/**"] });
    expect(files).toEqual(["../shared/go.mod", "../shared/probe/probe.go", "main.go"]);
  });

  it("rebuild every server that names the shared folder, natively and as an image, when a shared file changes", async () => {
    const { root, dir } = await serversWithSharedCode();
    const before = await Promise.all(
      ["a", "b"].flatMap((n) => [nativeBuildHash(server(dir(n))), sourceHash(dir(n), inputs)]),
    );
    await writeFile(path.join(root, "servers/shared/probe/probe.go"), "package probe // changed");
    const after = await Promise.all(
      ["a", "b"].flatMap((n) => [nativeBuildHash(server(dir(n))), sourceHash(dir(n), inputs)]),
    );
    for (const [i, hash] of after.entries()) expect(hash).not.toBe(before[i]);
    await writeFile(path.join(root, "servers/a/bin/server"), "another binary");
    expect(await nativeBuildHash(server(dir("a")))).toBe(after[0]);
  });

  it("are the same through a servers folder of symlinks, so the worker's tags match the image script's", async () => {
    const { root, dir } = await serversWithSharedCode();
    const linked = path.join(root, "links/a");
    expect(await nativeBuildHash(server(linked))).toBe(await nativeBuildHash(server(dir("a"))));
    expect(await sourceHash(linked, inputs)).toBe(await sourceHash(dir("a"), inputs));
  });
});
