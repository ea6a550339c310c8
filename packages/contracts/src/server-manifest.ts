import { z } from "zod";

export const ZSlug = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lowercase letters, digits and dashes");

/**
 * Another way to run the same build: only the environment differs (stateless mode, a cluster of
 * processes). It is chosen like a server of its own, as `<server>:<variant>`.
 */
export const ZServerVariant = z.strictObject({
  displayName: z.string().min(1),
  description: z.string().min(1),
  env: z.record(z.string(), z.string()),
});

/**
 * A Docker image reference with an explicit tag or digest (`registry/name:tag`, `name@sha256:…`):
 * a benchmark names the bytes it ran, never whatever `latest` is today.
 */
export const ZImageReference = z
  .string()
  .regex(
    /^(?:[a-zA-Z0-9][a-zA-Z0-9.-]*(?::\d+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::\w[\w.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$/,
    "a Docker image reference (registry/name:tag)",
  )
  .refine((ref) => /:\w[\w.-]{0,127}$|@sha256:[0-9a-f]{64}$/.test(ref.replace(/^[^/]*:\d+\//, "")), {
    message: "must name a tag or digest (registry/name:tag), so a cell records what it ran",
  });

/**
 * Capabilities a server's container may get back after the docker driver drops them all: Docker's own
 * default set (less the raw sockets and device files a benchmarked server has no use for) plus
 * SYS_NICE and IPC_LOCK, which some runtimes use for thread priorities and locked memory. Nothing that
 * lifts the cell's limits (SYS_RESOURCE) or reaches the host (SYS_ADMIN, NET_ADMIN, SYS_PTRACE).
 */
export const CONTAINER_CAPABILITIES = [
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "SETGID",
  "SETUID",
  "SETPCAP",
  "NET_BIND_SERVICE",
  "SYS_CHROOT",
  "AUDIT_WRITE",
  "SYS_NICE",
  "IPC_LOCK",
] as const;

/**
 * What the docker driver relaxes for this server, which its runtime needs (an image that writes
 * outside /tmp, or binds a port below 1024): a writable root filesystem and capabilities from
 * CONTAINER_CAPABILITIES. Registering it is an admin's choice like the image itself; the cell
 * records it with the server build.
 */
export const ZServerContainer = z.strictObject({
  writableRoot: z.boolean().default(false),
  capabilities: z.array(z.enum(CONTAINER_CAPABILITIES)).default([]),
});

/** What a server folder's own test suite runs: a shell line in the folder, like `build.command`. */
export const ZServerTest = z.strictObject({ command: z.string().min(1) });

const REQUIRED_WITHOUT_IMAGE = "required unless `image` registers a prebuilt image";

/**
 * What a server answers: `mcp`, the tools at `mcpPath` (CONTRACT.md sections 2–4), and `http`, the
 * plain routes of section 7. A REST-only server (chi, express) says `["http"]`; the matrix refuses
 * to schedule a scenario on a server that lacks its protocol.
 */
export const serverProtocols = ["mcp", "http"] as const;
export type ServerProtocol = (typeof serverProtocols)[number];
/** A manifest without `protocols`: an MCP server with the plain routes, as every server once was. */
export const DEFAULT_PROTOCOLS: readonly ServerProtocol[] = serverProtocols;

export const ZProtocols = z
  .array(
    z.enum(serverProtocols, { error: `must be one of ${serverProtocols.map((p) => `"${p}"`).join(", ")}` }),
  )
  .min(1, 'name at least one protocol: "mcp", "http" or both')
  .default([...DEFAULT_PROTOCOLS])
  .superRefine((protocols, ctx) => {
    protocols.forEach((protocol, i) => {
      if (protocols.indexOf(protocol) !== i)
        ctx.addIssue({ code: "custom", path: [i], message: "is listed twice" });
    });
  });

/** The manifest's fields as written; `ZServerManifest` adds the rules between them. */
const ZServerManifestFields = z.strictObject({
  name: ZSlug,
  displayName: z.string().min(1),
  language: z.string().min(1),
  runtime: z.string().min(1),
  sdk: z.object({ name: z.string().min(1), version: z.string().min(1) }),
  /**
   * A prebuilt image the docker driver runs instead of one built from the folder's Dockerfile (the
   * folder then needs no Dockerfile, build or start command; build-images.sh skips it). It must be on
   * the Docker engine: pull or load it there.
   */
  image: ZImageReference.optional(),
  /** How the local driver's native build is made; none for a server registered as an image. */
  build: z
    .object({
      command: z.string().min(1),
      inputs: z.array(z.string()).default([]),
    })
    .optional(),
  /** How the local driver starts the server; a registered image without one runs under docker only. */
  start: z
    .object({
      command: z.array(z.string()).min(1).optional(),
      env: z.record(z.string(), z.string()).default({}),
    })
    .optional(),
  /** The folder's own suite, run by scripts/test.sh (scripts/test-servers.ts) before the integration tests. */
  test: ZServerTest.optional(),
  /** Container settings the runtime needs beyond a read-only root and no capabilities (docker driver). */
  container: ZServerContainer.optional(),
  healthPath: z.string().startsWith("/").default("/health"),
  /** `/mcp` when left out; a server without `mcp` in `protocols` must leave it out. */
  mcpPath: z.string().startsWith("/").optional(),
  protocols: ZProtocols,
  tools: z.array(z.string()).default([]),
  variants: z.record(ZSlug, ZServerVariant).default({}),
});

/** A registered image with nothing to build natively: the native build step has nothing to do. */
const NO_BUILD = { command: "true", inputs: [] as string[] };

/**
 * servers/<name>/perflab.json — read by the worker (build, start), the web app (run form) and the
 * image and test scripts. Unknown fields are refused by name. Without `image`, `build` and
 * `start.command` are required; with it, `start.command` is empty when the manifest gives none.
 */
export const ZServerManifest = ZServerManifestFields.superRefine((manifest, ctx) => {
  if (!manifest.protocols.includes("mcp")) {
    const without = 'a server without "mcp" in `protocols` has none';
    if (manifest.tools.length > 0)
      ctx.addIssue({ code: "custom", path: ["tools"], message: `${without}: leave it out` });
    if (manifest.mcpPath !== undefined)
      ctx.addIssue({ code: "custom", path: ["mcpPath"], message: `${without}: leave it out` });
  }
  if (manifest.image) return;
  if (!manifest.build) ctx.addIssue({ code: "custom", path: ["build"], message: REQUIRED_WITHOUT_IMAGE });
  if (!manifest.start?.command)
    ctx.addIssue({ code: "custom", path: ["start", "command"], message: REQUIRED_WITHOUT_IMAGE });
}).transform(({ build, start, mcpPath, ...manifest }) => ({
  ...manifest,
  // Kept a path for a REST-only server too, so callers need no null check; nothing requests it.
  mcpPath: mcpPath ?? "/mcp",
  build: build ?? NO_BUILD,
  start: { command: start?.command ?? [], env: start?.env ?? {} },
}));
export type TServerManifest = z.infer<typeof ZServerManifest>;

/** What the web app and API need to know about a server, without paths or commands. */
export const ZServerInfo = z
  .object(ZServerManifestFields.shape)
  .pick({
    name: true,
    displayName: true,
    language: true,
    runtime: true,
    sdk: true,
    protocols: true,
    tools: true,
  })
  .extend({
    /** `<server>` or, for a variant, `<server>:<variant>`. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*(:[a-z0-9][a-z0-9-]*)?$/, "<server> or <server>:<variant>"),
    /** The server folder a variant runs (its own name for a plain server). */
    base: ZSlug,
    /** The variant's id, or null for the server as its manifest starts it. */
    variant: ZSlug.nullable(),
    /** What the variant changes, in a sentence; null for a plain server. */
    description: z.string().nullable(),
  });
export type TServerInfo = z.infer<typeof ZServerInfo>;
