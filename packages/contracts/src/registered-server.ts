import { z } from "zod";
import { ZImageReference, ZProtocols, ZServerContainer, ZServerInfo, ZSlug } from "./server-manifest.ts";

/**
 * How a registered server runs: an image on the worker's Docker engine (docker driver), a command
 * on the worker's machine (local driver; an admin's choice, since it runs code there), or an
 * endpoint already running, which perflab only loads and watches.
 */
export const registeredServerKinds = ["image", "command", "endpoint"] as const;
export type RegisteredServerKind = (typeof registeredServerKinds)[number];

/** Load traffic stays on the machine's loopback: an endpoint is one of these hosts. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"] as const;

/** Why a URL is not one load may go to (one reason, the first), or null. */
function loopbackUrlProblem(text: string, needsPort: boolean): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "an http:// URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "an http:// URL";
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(url.hostname))
    return `must be on this machine's loopback (${LOOPBACK_HOSTS.join(", ")}): load traffic never leaves it`;
  if (needsPort && url.port === "") return "name the port (http://127.0.0.1:<port>)";
  return null;
}

const ZLoopbackUrl = (needsPort: boolean) =>
  z
    .string()
    .max(2_000)
    .superRefine((text, ctx) => {
      const problem = loopbackUrlProblem(text, needsPort);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });

const ZEnv = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"), z.string())
  .default({});

/** The fixed port a server listens on; left out, the driver picks a free one and passes it as PORT. */
const ZPort = z.int().min(1).max(65_535).optional();

/** Who the server is, as its rows in results are labelled: the same fields as a manifest's. */
const ZIdentity = {
  name: ZSlug.max(60),
  displayName: z.string().trim().min(1).max(120),
  language: z.string().trim().min(1).max(60),
  runtime: z.string().trim().min(1).max(60),
  sdk: z.strictObject({ name: z.string().trim().min(1).max(200), version: z.string().trim().min(1).max(60) }),
  protocols: ZProtocols,
  tools: z.array(z.string().min(1).max(100)).max(100).default([]),
  mcpPath: z.string().startsWith("/").max(200).default("/mcp"),
  healthPath: z.string().startsWith("/").max(200).default("/health"),
};

export const ZRegisteredImage = z.strictObject({
  ...ZIdentity,
  kind: z.literal("image"),
  image: ZImageReference,
  port: ZPort,
  env: ZEnv,
  container: ZServerContainer.optional(),
});

export const ZRegisteredCommand = z.strictObject({
  ...ZIdentity,
  kind: z.literal("command"),
  command: z.array(z.string().min(1)).min(1, "name the program and its arguments"),
  /** The folder it starts in, on the worker's machine. */
  cwd: z.string().startsWith("/", "an absolute path on the worker's machine").default("/"),
  port: ZPort,
  env: ZEnv,
});

export const ZRegisteredEndpoint = z.strictObject({
  ...ZIdentity,
  kind: z.literal("endpoint"),
  /** Where it answers: scheme, host and port (`http://127.0.0.1:8080`); paths are mcpPath and healthPath. */
  url: ZLoopbackUrl(true),
  /** An optional JSON runtime report (a server's /debug/runtime), read once a second. */
  runtimeUrl: ZLoopbackUrl(false).optional(),
});

/** The body of POST /api/v1/servers and PUT /api/v1/servers/{id}: one of three kinds. */
export const ZRegisteredServerInput = z.discriminatedUnion(
  "kind",
  [ZRegisteredImage, ZRegisteredCommand, ZRegisteredEndpoint],
  { error: `must be one of ${registeredServerKinds.map((k) => `"${k}"`).join(", ")}` },
);
export type TRegisteredServerInput = z.input<typeof ZRegisteredServerInput>;
export type TRegisteredServer = z.infer<typeof ZRegisteredServerInput>;

/** A registered server as the API answers it. */
export const ZRegisteredServerDto = z.object({
  id: z.string(),
  definition: ZRegisteredServerInput,
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type TRegisteredServerDto = z.infer<typeof ZRegisteredServerDto>;

/** Which registered server a catalog row is (null for the lab's own servers). */
export const ZServerRegistration = z
  .object({ id: z.string(), kind: z.enum(registeredServerKinds) })
  .nullable();
export type TServerRegistration = z.infer<typeof ZServerRegistration>;

/** A catalog row with its registration: what the run form and GET /api/v1/servers list. */
export const ZServerListEntry = ZServerInfo.extend({ registered: ZServerRegistration.default(null) });
