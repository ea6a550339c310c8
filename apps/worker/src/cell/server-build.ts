import type { CatalogEntry } from "@perflab/catalog";
import { ENDPOINT_UNMEASURED } from "../drivers/endpoint.ts";

/** What ran, recorded on the cell: the manifest's identity, plus the image once a driver chose one. */
export function serverBuild(server: CatalogEntry, image: string | null, imageId: string | null = null) {
  return {
    language: server.language,
    runtime: server.runtime,
    sdk: server.sdk,
    command: server.start.command,
    // A variant's settings (stateless, a cluster) are part of what ran.
    variant: server.variant,
    env: server.start.env,
    image,
    imageId,
    // What the docker driver relaxed for this server's runtime, if its manifest asked.
    ...(server.container ? { container: server.container } : {}),
    // A registered server says which it is; an endpoint, which metrics its cells cannot have.
    ...(server.registered ? registration(server.registered) : {}),
  };
}

function registration({ id, kind, url }: NonNullable<CatalogEntry["registered"]>) {
  return {
    registered: { id, kind, ...(url ? { url } : {}) },
    ...(kind === "endpoint" ? { unmeasured: [...ENDPOINT_UNMEASURED] } : {}),
  };
}

export type ServerBuild = ReturnType<typeof serverBuild>;
