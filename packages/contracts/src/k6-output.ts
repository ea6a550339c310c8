import { z } from "zod";
import { ILL_FORMED_MESSAGE, isWellFormedText } from "./fields.ts";

/**
 * Bounds on what a line may claim. The lab stores a second's requests, errors and operations as
 * 32-bit integers and bytes as 64-bit ones; a value past what one k6 instance can do in a second
 * (a million requests) is a damaged or hostile file, refused by name rather than failing the write.
 */
const PER_SECOND_MAX = 1_000_000;
const BYTES_PER_SECOND_MAX = 1e13;
/** Epoch times between 2000 and 2100: anything else is not a clock reading. */
const EPOCH_MS_MIN = 946_684_800_000;
const EPOCH_MS_MAX = 4_102_444_800_000;

const noNul = (value: string) => !value.includes("\u0000");
const tag = z
  .string()
  .max(200, "must be at most 200 characters")
  .refine(noNul, "must not contain a NUL character")
  .refine(isWellFormedText, ILL_FORMED_MESSAGE);
const perSecond = z
  .number()
  .int()
  .nonnegative()
  .max(PER_SECOND_MAX, `must be at most ${PER_SECOND_MAX} in one second`);

/** One group of an interval line written by perflab's k6 output (`--out perflab=<path>`). */
export const ZK6IntervalGroup = z.object({
  phase: tag,
  method: tag,
  tool: tag,
  requests: perSecond,
  /** HTTP-level failures (k6's http_req_failed). */
  failed: perSecond,
  /** Failed MCP operations (JSON-RPC error, isError, bad status), HTTP failures included; 0 for non-MCP scripts. */
  opErrors: perSecond.default(0),
  /** Of the failed: requests that hit the client's timeout (TIMEOUT_MS; k6's error_code 1050). */
  timeouts: perSecond.optional(),
  /** http_req_duration in microseconds, HDR histogram, compressed V2 base64 (a few KiB at most). */
  hist: z.string().max(1_000_000, "must be at most 1000000 characters"),
});

/** NDJSON lines; lines with the same `t` are additive (late samples arrive as a second line). */
export const ZK6OutputLine = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("start"),
    /** Unix time in milliseconds. */
    t: z
      .number()
      .int()
      .min(EPOCH_MS_MIN, "must be a Unix time in milliseconds")
      .max(EPOCH_MS_MAX, "must be a Unix time in milliseconds"),
    k6: tag,
  }),
  z.object({
    /**
     * When k6's test run began, after VU initialisation (Unix ms): the warm-up, and so the
     * measured window, count from it. Written once, before the first second with a request.
     */
    type: z.literal("run"),
    t: z
      .number()
      .int()
      .min(EPOCH_MS_MIN, "must be a Unix time in milliseconds")
      .max(EPOCH_MS_MAX, "must be a Unix time in milliseconds"),
  }),
  z.object({
    type: z.literal("interval"),
    /** Unix time in seconds. */
    t: z
      .number()
      .int()
      .min(EPOCH_MS_MIN / 1000, "must be a Unix time in seconds")
      .max(EPOCH_MS_MAX / 1000, "must be a Unix time in seconds"),
    groups: z.array(ZK6IntervalGroup).max(1000, "must have at most 1000 groups"),
    iterations: z.number().nonnegative().max(PER_SECOND_MAX, `must be at most ${PER_SECOND_MAX}`),
    /** Open model: calls k6 dropped in this second for want of a free VU; absent in older outputs. */
    dropped: perSecond.optional(),
    dataSent: z.number().nonnegative().max(BYTES_PER_SECOND_MAX, `must be at most ${BYTES_PER_SECOND_MAX}`),
    dataReceived: z
      .number()
      .nonnegative()
      .max(BYTES_PER_SECOND_MAX, `must be at most ${BYTES_PER_SECOND_MAX}`),
    vus: z.number().int().nonnegative().max(PER_SECOND_MAX, `must be at most ${PER_SECOND_MAX}`),
  }),
  z.object({ type: z.literal("end") }),
]);
export type TK6OutputLine = z.infer<typeof ZK6OutputLine>;
export type TK6IntervalLine = Extract<TK6OutputLine, { type: "interval" }>;
export type TK6IntervalGroup = z.infer<typeof ZK6IntervalGroup>;
