import { z } from "zod";

const ZSlug = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lowercase letters, digits and dashes");

/**
 * Another way to run the same build: only the environment differs (stateless mode, a cluster of
 * processes). It is chosen like a server of its own, as `<server>:<variant>`.
 */
export const ZServerVariant = z.strictObject({
  displayName: z.string().min(1),
  description: z.string().min(1),
  env: z.record(z.string(), z.string()),
});

/** servers/<name>/perflab.json — read by the worker (build, start) and the web app (run form). */
export const ZServerManifest = z.object({
  name: ZSlug,
  displayName: z.string().min(1),
  language: z.string().min(1),
  runtime: z.string().min(1),
  sdk: z.object({ name: z.string().min(1), version: z.string().min(1) }),
  build: z.object({
    command: z.string().min(1),
    inputs: z.array(z.string()).default([]),
  }),
  start: z.object({
    command: z.array(z.string()).min(1),
    env: z.record(z.string(), z.string()).default({}),
  }),
  healthPath: z.string().startsWith("/").default("/health"),
  mcpPath: z.string().startsWith("/").default("/mcp"),
  tools: z.array(z.string()).default([]),
  variants: z.record(ZSlug, ZServerVariant).default({}),
});
export type TServerManifest = z.infer<typeof ZServerManifest>;

/** What the web app and API need to know about a server, without paths or commands. */
export const ZServerInfo = ZServerManifest.pick({
  name: true,
  displayName: true,
  language: true,
  runtime: true,
  sdk: true,
  tools: true,
}).extend({
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
