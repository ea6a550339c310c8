import type { CatalogView, TServerInfo } from "@perflab/contracts";
import { type CatalogEntry, loadServerCatalog } from "@perflab/contracts/server-catalog";
import { env } from "../env";

/** Read on every call: a few small files, and a newly added server appears without a restart. */
export function getServerCatalog(): CatalogEntry[] {
  return env.PERFLAB_SERVERS_DIR ? loadServerCatalog(env.PERFLAB_SERVERS_DIR) : loadServerCatalog();
}

/** What the form and the API may see: no paths, commands or environment. */
export function toServerInfo(entry: CatalogEntry): TServerInfo {
  const { name, displayName, language, runtime, sdk, tools } = entry;
  return { name, displayName, language, runtime, sdk, tools };
}

export function toCatalogView(servers: Pick<TServerInfo, "name" | "tools">[]): CatalogView {
  return { servers: servers.map(({ name, tools }) => ({ name, tools })) };
}
