import { z } from "zod";

/** Most streams one level may hold: study 000's largest, with room for the client's own sockets. */
export const MAX_STREAMS = 10_000;

/** The streams a storm can hold: the Streamable HTTP standalone GET stream, or a legacy /sse stream. */
export const stormStreams = ["streamable", "legacy-sse"] as const;
export type StormStream = (typeof stormStreams)[number];

/** The levels the run form offers; the API and the CLI take any rising list. */
export const levelPresets = ["10,100", "10,100,1000", "10,100,1000,10000"] as const;

/** Stream counts, one after the other: a rising list of whole numbers, or the same as "10,100,1000". */
const ZLevels = z.preprocess(
  (value) => (typeof value === "string" ? value.split(",").map((v) => Number(v.trim())) : value),
  z
    .array(
      z
        .number({ error: "must list numbers" })
        .int("must list whole numbers")
        .min(1, "must list at least 1 stream a level")
        .max(MAX_STREAMS, `must list at most ${MAX_STREAMS} streams a level`),
      { error: 'must be a list of stream counts such as [10, 100] or "10,100"' },
    )
    .min(1, "must list at least one level")
    .max(8, "must list at most 8 levels")
    .refine((levels) => levels.every((n, i) => i === 0 || n > levels[i - 1]!), "must rise level by level"),
);

export const ZConnectionStormParams = z.strictObject({
  levels: ZLevels,
  stream: z.enum(stormStreams, { error: 'must be "streamable" or "legacy-sse"' }).default("streamable"),
  /** Seconds over which a level's streams open, evenly spread (closed model; a rate sets its own). */
  rampSec: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1 second")
    .max(600, "must be at most 600 seconds")
    .optional(),
});
export type TConnectionStormParams = z.input<typeof ZConnectionStormParams>;
