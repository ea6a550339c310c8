import { z } from "zod";
import { toolDefaults } from "../../../k6/tool-defaults.js";

/**
 * Most bytes the tool arguments may take as JSON. They reach k6 as one environment variable (ARGS),
 * and Linux refuses a single one over 128 KiB (E2BIG) when the process starts: every cell would fail.
 */
export const MAX_TOOL_ARGUMENTS_BYTES = 64 * 1024;

const utf8 = new TextEncoder();

/** What the arguments must be, said alike of text that is not JSON and of JSON that is no object. */
const NOT_AN_OBJECT = "must be a JSON object";

/**
 * JSON object of tool arguments; the form sends it as text, the API as an object. Text that does not
 * parse, and JSON or values that are no object (`[1,2]`, `1`, `"x"`, `null`), get the same message.
 */
const ZToolArguments = z.preprocess(
  (value, ctx) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      ctx.addIssue({ code: "custom", message: NOT_AN_OBJECT });
      return z.NEVER;
    }
  },
  z.record(z.string(), z.unknown(), { error: NOT_AN_OBJECT }).superRefine((value, ctx) => {
    const bytes = utf8.encode(JSON.stringify(value)).length;
    if (bytes > MAX_TOOL_ARGUMENTS_BYTES) {
      ctx.addIssue({
        code: "custom",
        message: `must be at most ${MAX_TOOL_ARGUMENTS_BYTES / 1024} KiB as JSON (it is ${Math.ceil(bytes / 1024)} KiB)`,
      });
    }
  }),
);

/**
 * How a VU uses MCP sessions: `per-vu` (the default, absent from stored params) opens one and keeps
 * it; `per-call` opens a new one for every call and ends it with DELETE — the session storm of
 * agents that connect per task, where session setup and teardown dominate.
 */
export const sessionModes = ["per-vu", "per-call"] as const;
export type SessionMode = (typeof sessionModes)[number];

/** Most sessions one VU holds open: k6 keeps them all in one VU, one request at a time. */
export const MAX_SESSIONS_PER_VU = 1000;
/** Longest pause a VU makes after each call. */
export const MAX_THINK_MS = 60_000;

/**
 * A call's arguments as given, else its tool's defaults (`defaultToolArguments`, what the run form
 * fills in), else none: `--tool echo` alone calls echo("hello") rather than sending `{}`, which every
 * server refuses, and measuring nothing but errors. The stored params keep the arguments used.
 */
export function withDefaultArguments<
  P extends { tool: string; arguments?: Record<string, unknown> | undefined },
>(params: P): P {
  const { tool, arguments: given, ...rest } = params;
  const defaults = defaultToolArguments[tool];
  return { tool, arguments: given ?? (defaults ? structuredClone(defaults) : {}), ...rest } as P;
}

export const ZMcpToolCallParams = z
  .strictObject({
    tool: z.string({ error: "choose a tool" }).min(1, "choose a tool"),
    /** Absent: the tool's defaults (withDefaultArguments). */
    arguments: ZToolArguments.optional(),
    session: z
      .enum(sessionModes, { error: 'must be "per-vu" or "per-call"' })
      .optional()
      // The default is left out so workloads stored before sessions could be chosen compare equal.
      .transform((mode) => (mode === "per-vu" ? undefined : mode)),
    /**
     * Sessions each VU opens at its start and keeps, calling them in turn: VUs × this many sessions
     * are held open, the many mostly idle agents of one server whose memory per session a lab
     * wants to know. Left out when 1.
     */
    sessionsPerVu: z
      .number({ error: "must be a whole number of sessions" })
      .int("must be a whole number of sessions")
      .min(1, "must be at least 1")
      .max(MAX_SESSIONS_PER_VU, `must be at most ${MAX_SESSIONS_PER_VU}`)
      .optional()
      .transform((n) => (n === 1 ? undefined : n)),
    /** A VU's pause after each call, in ms: agents that think between calls. Left out when 0. */
    thinkMs: z
      .number({ error: "must be a whole number of milliseconds" })
      .int("must be a whole number of milliseconds")
      .min(0, "must not be negative")
      .max(MAX_THINK_MS, `must be at most ${MAX_THINK_MS} ms`)
      .optional()
      .transform((n) => (n === 0 ? undefined : n)),
  })
  .superRefine(checkSessions)
  .overwrite(withDefaultArguments);

/** Sessions held open and a new session per call exclude each other. */
export function checkSessions(
  params: { session?: SessionMode | undefined; sessionsPerVu?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if (params.session === "per-call" && params.sessionsPerVu !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["sessionsPerVu"],
      message: "holds sessions open, which a new session per call does not: choose one session per VU",
    });
  }
}

/**
 * Default arguments per contract tool, so the form starts from a valid call (k6/tool-defaults.js,
 * which mcp-tool-call.js also sends when run by hand without ARGS).
 */
export const defaultToolArguments: Readonly<Record<string, Record<string, unknown>>> = toolDefaults;

/** Tools that call the fixtures (servers/fixtures): the worker starts and resets them before such a cell. */
export const fixtureTools: ReadonlySet<string> = new Set([
  "fetch_upstream",
  "search_products",
  "get_user_cart",
  "checkout",
  "get_user",
]);
