import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type TServerManifest, ZServerManifest } from "./server-manifest.ts";

export type CatalogEntry = TServerManifest & { dir: string };

/** The repository's servers/ folder, found relative to this file so every app agrees on it. */
export const defaultServersDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../servers",
);

/**
 * Reads every servers/<name>/perflab.json. A broken manifest is an error naming the file,
 * not a server silently missing from the form.
 */
export function loadServerCatalog(serversDir: string = defaultServersDir): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const name of readdirSync(serversDir).sort()) {
    const file = path.join(serversDir, name, "perflab.json");
    if (!existsSync(file)) continue;
    const parsed = ZServerManifest.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (!parsed.success) {
      throw new Error(
        `${file}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    }
    if (parsed.data.name !== name)
      throw new Error(`${file}: name "${parsed.data.name}" must equal its folder "${name}"`);
    entries.push({ ...parsed.data, dir: path.join(serversDir, name) });
  }
  return entries;
}
