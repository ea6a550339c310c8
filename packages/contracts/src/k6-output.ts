import { z } from "zod";

/** One group of an interval line written by perflab's k6 output (`--out perflab=<path>`). */
export const ZK6IntervalGroup = z.object({
  phase: z.string(),
  method: z.string(),
  tool: z.string(),
  requests: z.number().int().nonnegative(),
  /** HTTP-level failures (k6's http_req_failed). */
  failed: z.number().int().nonnegative(),
  /** Failed MCP operations (JSON-RPC error, isError, bad status), HTTP failures included; 0 for non-MCP scripts. */
  opErrors: z.number().int().nonnegative().default(0),
  /** http_req_duration in microseconds, HDR histogram, compressed V2 base64. */
  hist: z.string(),
});

/** NDJSON lines; lines with the same `t` are additive (late samples arrive as a second line). */
export const ZK6OutputLine = z.discriminatedUnion("type", [
  z.object({ type: z.literal("start"), t: z.number(), k6: z.string() }),
  z.object({
    type: z.literal("interval"),
    t: z.number().int(),
    groups: z.array(ZK6IntervalGroup),
    iterations: z.number().nonnegative(),
    /** Open model: calls k6 dropped in this second for want of a free VU; absent in older outputs. */
    dropped: z.number().int().nonnegative().optional(),
    dataSent: z.number().nonnegative(),
    dataReceived: z.number().nonnegative(),
    vus: z.number().nonnegative(),
  }),
  z.object({ type: z.literal("end") }),
]);
export type TK6OutputLine = z.infer<typeof ZK6OutputLine>;
export type TK6IntervalLine = Extract<TK6OutputLine, { type: "interval" }>;
export type TK6IntervalGroup = z.infer<typeof ZK6IntervalGroup>;
