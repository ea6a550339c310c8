import { type CatalogEntry, loadServerCatalog, registeredEntry, withVariants } from "@perflab/catalog";
import type { CatalogView, TServerInfo, TServerRegistration } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import { env } from "../env";
import type { Caller } from "./auth";
import type { RegisteredCells } from "./operations/create-run";
import { listRegisteredServers } from "./operations/registered-servers";

/**
 * Read on every call: a few small files, and a newly added server appears without a restart. Each
 * server is followed by its variants (`node:cluster`), which a matrix names like servers.
 */
export function getServerCatalog(): CatalogEntry[] {
  return withVariants(
    env.PERFLAB_SERVERS_DIR ? loadServerCatalog(env.PERFLAB_SERVERS_DIR) : loadServerCatalog(),
  );
}

/**
 * The lab's servers, then the caller's workspace's registered ones: what its matrices may name.
 * A definition that no longer reads is left out rather than failing the form.
 */
export async function getWorkspaceCatalog(db: Db, caller: Caller | null): Promise<CatalogEntry[]> {
  const rows = await listRegisteredServers({ db, caller });
  const registered = rows.flatMap((row) => {
    try {
      return [registeredEntry(row)];
    } catch {
      return [];
    }
  });
  return [...getServerCatalog(), ...registered];
}

/** What the form and the API may see: no paths, commands or environment. */
export function toServerInfo(entry: CatalogEntry): TServerInfo & { registered: TServerRegistration } {
  const { name, displayName, language, runtime, sdk, protocols, tools, base, variant, description } = entry;
  const registered = entry.registered ? { id: entry.registered.id, kind: entry.registered.kind } : null;
  return {
    name,
    displayName,
    language,
    runtime,
    sdk,
    protocols,
    tools,
    base,
    variant,
    description,
    registered,
  };
}

/**
 * The registered servers by name, so each cell records the definition it ran and the driver its
 * kind runs under (an image docker, a command local; an endpoint keeps the run's, starting nothing).
 */
export function registeredCells(catalog: CatalogEntry[]): RegisteredCells {
  const driverOf = { image: "docker", command: "local", endpoint: null } as const;
  return Object.fromEntries(
    catalog.flatMap((e) =>
      e.registered ? [[e.name, { id: e.registered.id, driver: driverOf[e.registered.kind] }]] : [],
    ),
  );
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
