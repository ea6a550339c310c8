import {
  type RegisteredServerKind,
  type TRegisteredServer,
  ZRegisteredServerInput,
} from "@perflab/contracts";
import type { CatalogEntry } from "./server-catalog.ts";

/** Where a registered server comes from and how it is reached; absent on the lab's own servers. */
export type Registration = {
  id: string;
  kind: RegisteredServerKind;
  /** The port it listens on when its definition fixes one (an endpoint's always does). */
  port: number | null;
  /** An endpoint's base URL and optional runtime report. */
  url: string | null;
  runtimeUrl: string | null;
};

/** A row of server_definitions with source `registered`, as read by the web app and the worker. */
export type RegisteredRow = { id: string; manifest: unknown };

/**
 * A registered server as a catalog entry, so every driver, stage and page treats it as it treats
 * the lab's own: an image runs under docker, a command under the local driver, an endpoint as is.
 * A definition that no longer reads (written by a newer perflab) throws naming its field.
 */
export function registeredEntry(row: RegisteredRow): CatalogEntry {
  const parsed = ZRegisteredServerInput.safeParse(row.manifest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`registered server ${row.id}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return entryOf(row.id, parsed.data);
}

function entryOf(id: string, def: TRegisteredServer): CatalogEntry {
  const { name, displayName, language, runtime, sdk, protocols, tools, mcpPath, healthPath } = def;
  const registration: Registration = {
    id,
    kind: def.kind,
    port: def.kind === "endpoint" ? Number(new URL(def.url).port) : (def.port ?? null),
    url: def.kind === "endpoint" ? new URL(def.url).origin : null,
    runtimeUrl: def.kind === "endpoint" ? (def.runtimeUrl ?? null) : null,
  };
  return {
    name,
    displayName,
    language,
    runtime,
    sdk,
    protocols,
    tools,
    mcpPath,
    healthPath,
    variants: {},
    ...(def.kind === "image" ? { image: def.image } : {}),
    ...(def.kind === "image" && def.container ? { container: def.container } : {}),
    build: { command: "true", inputs: [] },
    start: {
      command: def.kind === "command" ? def.command : [],
      env: def.kind === "endpoint" ? {} : def.env,
    },
    dir: def.kind === "command" ? def.cwd : "/",
    base: name,
    variant: null,
    description: null,
    registered: registration,
  };
}
