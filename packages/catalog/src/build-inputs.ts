import { createHash } from "node:crypto";
import { readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
import type { CatalogEntry } from "./server-catalog.ts";

/**
 * The files matching a server folder's input patterns, relative to the folder, sorted. A pattern may
 * leave the folder ("../go-common/**") for code that several servers build in. The folder is resolved
 * through symlinks first, so a servers folder made of links (as the tests make) reaches the same files.
 */
export async function buildInputFiles(
  dir: string,
  patterns: string[],
  options: { ignore: string[]; dot?: boolean },
): Promise<{ dir: string; files: string[] }> {
  const real = await realpath(dir).catch(() => dir); // a folder that is not there matches nothing
  const files = await glob(patterns, { cwd: real, ignore: options.ignore, dot: options.dot ?? false });
  return { dir: real, files: files.sort() };
}

/**
 * The native build's stamp: its command and the content of every file its manifest's `build.inputs`
 * name, manifest included. `scripts/build-servers.ts` rebuilds a server when this changes.
 */
export async function nativeBuildHash(server: Pick<CatalogEntry, "dir" | "build">): Promise<string> {
  const { dir, files } = await buildInputFiles(server.dir, [...server.build.inputs, "perflab.json"], {
    ignore: ["**/node_modules/**", "**/target/**", "bin/**"],
  });
  const hash = createHash("sha256").update(server.build.command);
  for (const file of files) hash.update(file).update(await readFile(path.join(dir, file)));
  return hash.digest("hex");
}
