import { type CatalogEntry, loadServerCatalog, withVariants } from "@perflab/catalog";
import type { CatalogView, TServerInfo } from "@perflab/contracts";
import { env } from "../env";

/**
 * Read on every call: a few small files, and a newly added server appears without a restart. Each
 * server is followed by its variants (`node:cluster`), which a matrix names like servers.
 */
export function getServerCatalog(): CatalogEntry[] {
  return withVariants(
    env.PERFLAB_SERVERS_DIR ? loadServerCatalog(env.PERFLAB_SERVERS_DIR) : loadServerCatalog(),
  );
}

/** What the form and the API may see: no paths, commands or environment. */
export function toServerInfo(entry: CatalogEntry): TServerInfo {
  const { name, displayName, language, runtime, sdk, protocols, tools, base, variant, description } = entry;
  return { name, displayName, language, runtime, sdk, protocols, tools, base, variant, description };
}

export function toCatalogView(servers: Pick<TServerInfo, "name" | "tools" | "protocols">[]): CatalogView {
  return { servers: servers.map(({ name, tools, protocols }) => ({ name, tools, protocols })) };
}

/**
 * The catalog's server names in its order, each followed by its variants: what the charts' server
 * colours follow (lib/colours), on every page alike. A manifest that does not read (the form says
 * which) leaves the colours to the servers' names rather than failing a page of results.
 */
export function catalogServerNames(): string[] {
  try {
    return getServerCatalog().map((entry) => entry.name);
  } catch {
    return [];
  }
}
