import type { CatalogEntry } from "@perflab/catalog";

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
  };
}

export type ServerBuild = ReturnType<typeof serverBuild>;
