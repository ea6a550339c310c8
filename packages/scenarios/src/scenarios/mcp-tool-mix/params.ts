import { z } from "zod";
import { fixtureTools, withDefaultArguments } from "../mcp-tool-call/params.ts";

/** Most bytes the mix may take as JSON: it reaches k6 as a file, and echo takes a message of 1 MiB. */
export const MAX_MIX_BYTES = 1024 * 1024 + 4096;
/** Most tools in one mix: each is a submetric k6 keeps for the summary. */
export const MAX_MIX_TOOLS = 20;
/** Most calls in one session between its tools/list and its DELETE. */
export const MAX_CALLS_PER_SESSION = 1000;

/** MCP's tool names (1–128 letters, digits, `_`, `-`, `.`): also safe inside k6's tag selectors. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const NOT_A_MIX = "must be a JSON array of { tool, weight, arguments }";
const utf8 = new TextEncoder();

const ZMixEntry = z
  .strictObject({
    tool: z
      .string({ error: "choose a tool" })
      .regex(TOOL_NAME, "must be a tool name (letters, digits, _ - .)"),
    /** How often it is called against the others: echo 3 and fibonacci 1 call echo three times as often. */
    weight: z
      .number({ error: "must be a whole number" })
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(1000, "must be at most 1000")
      .default(1),
    /** Absent: the tool's defaults, as for one tool (withDefaultArguments). */
    arguments: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }).optional(),
  })
  .overwrite(withDefaultArguments);

/** The mix: as text from the run form, as an array from the API and the CLI. */
const ZMix = z.preprocess(
  (value, ctx) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      ctx.addIssue({ code: "custom", message: NOT_A_MIX });
      return z.NEVER;
    }
  },
  z
    .array(ZMixEntry, { error: NOT_A_MIX })
    .min(1, "must name at least one tool")
    .max(MAX_MIX_TOOLS, `must name at most ${MAX_MIX_TOOLS} tools`)
    .superRefine(checkMix),
);

function checkMix(mix: z.output<typeof ZMixEntry>[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  mix.forEach((entry, i) => {
    if (seen.has(entry.tool))
      ctx.addIssue({ code: "custom", path: [i, "tool"], message: "is in the mix twice: raise its weight" });
    seen.add(entry.tool);
  });
  const bytes = utf8.encode(JSON.stringify(mix)).length;
  if (bytes > MAX_MIX_BYTES) {
    ctx.addIssue({
      code: "custom",
      message: `must be at most ${MAX_MIX_BYTES / 1024} KiB as JSON (it is ${Math.ceil(bytes / 1024)} KiB)`,
    });
  }
}

/**
 * Agents' sessions with a mix of tools: each iteration opens a session, lists the tools, makes
 * `callsPerSession` calls drawn from `tools` by weight, and ends the session with DELETE.
 */
export const ZMcpToolMixParams = z.strictObject({
  tools: ZMix,
  callsPerSession: z
    .number({ error: "must be a whole number of calls" })
    .int("must be a whole number of calls")
    .min(1, "must be at least 1")
    .max(MAX_CALLS_PER_SESSION, `must be at most ${MAX_CALLS_PER_SESSION}`)
    .default(10),
});
export type TMcpToolMixParams = z.output<typeof ZMcpToolMixParams>;

/** The run form's mix to start from: what the studies mixed most, a fast tool and a CPU-bound one. */
export const defaultMix = [
  { tool: "echo", weight: 3 },
  { tool: "fibonacci", weight: 1 },
] as const;

/** Whether a mix calls a tool that reaches the fixtures. */
export const mixNeedsFixtures = (params: TMcpToolMixParams) =>
  params.tools.some((t) => fixtureTools.has(t.tool));

/** A mix in a few words: "echo×3 fibonacci×1 · 10 calls per session". */
export function mixName(params: TMcpToolMixParams): string {
  const tools = params.tools.map((t) => (t.weight === 1 ? t.tool : `${t.tool}×${t.weight}`)).join(" ");
  return `mix ${tools} · ${params.callsPerSession} calls per session`;
}
