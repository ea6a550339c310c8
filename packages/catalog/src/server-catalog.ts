import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type TServerManifest, ZServerManifest } from "@perflab/contracts";
import type { Registration } from "./registered.ts";

/**
 * A server the worker can run: a manifest as found (`variant` null), or one of its variants, named
 * `<server>:<variant>`, with the variant's environment over the manifest's.
 */
export type CatalogEntry = TServerManifest & {
  dir: string;
  /** The manifest's name: its folder, build and image. */
  base: string;
  variant: string | null;
  description: string | null;
  /** Set on a server registered through the API, dashboard or CLI (registered.ts). */
  registered?: Registration;
};

/** The repository's servers/ folder, found relative to this file so every app agrees on it. */
export const defaultServersDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../servers",
);

/**
 * Reads every servers/<name>/perflab.json (another folder laid out the same way with `serversDir`:
 * the worker's and web app's PERFLAB_SERVERS_DIR). A broken manifest is an error naming the file and
 * the field, not a server silently missing from the form.
 */
export function loadServerCatalog(serversDir: string = defaultServersDir): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  for (const name of readdirSync(serversDir).sort()) {
    const file = path.join(serversDir, name, "perflab.json");
    if (!existsSync(file)) continue;
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
    }
    const parsed = ZServerManifest.safeParse(json);
    if (!parsed.success) {
      throw new Error(
        `${file}: ${parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ")}`,
      );
    }
    if (parsed.data.name !== name)
      throw new Error(`${file}: name "${parsed.data.name}" must equal its folder "${name}"`);
    // One image per server: which of the two would a docker cell run?
    if (parsed.data.image && existsSync(path.join(serversDir, name, "Dockerfile")))
      throw new Error(
        `${file}: image: registers the prebuilt image ${parsed.data.image}, but the folder also has a Dockerfile; keep one`,
      );
    entries.push({
      ...parsed.data,
      dir: path.join(serversDir, name),
      base: name,
      variant: null,
      description: null,
    });
  }
  return entries;
}

/** The separator of `<server>:<variant>`: never in a folder name, so the two cannot collide. */
export const VARIANT_SEPARATOR = ":";

/** Every server, each followed by its variants: what a matrix may name. */
export function withVariants(servers: CatalogEntry[]): CatalogEntry[] {
  return servers.flatMap((server) => [
    server,
    ...Object.entries(server.variants).map(([id, variant]) => ({
      ...server,
      name: `${server.base}${VARIANT_SEPARATOR}${id}`,
      displayName: `${server.displayName} · ${variant.displayName}`,
      start: { ...server.start, env: { ...server.start.env, ...variant.env } },
      variant: id,
      description: variant.description,
      variants: {},
    })),
  ]);
}
