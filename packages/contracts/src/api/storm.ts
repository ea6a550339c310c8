import { z } from "zod";

/** k6's percentiles of one level's streams, in ms; null where no stream of the level was timed. */
export const ZStormPercentiles = z.object({ p50: z.number(), p90: z.number(), p99: z.number() });

/** One level of an open-connection storm: its streams as k6 counted them, and the server meanwhile. */
export const ZStormLevel = z.object({
  level: z.number().int().describe("Streams the level asked for."),
  established: z
    .number()
    .int()
    .describe(
      "Streams answered 200 text/event-stream (and, on /sse, that sent their endpoint event): the streams held.",
    ),
  failed: z.number().int().describe("A handshake or the GET refused or broken, or not open in time."),
  dropped: z.number().int().describe("Established streams the server ended before their hold did."),
  silent: z
    .number()
    .int()
    .describe("Established streams that carried no event: their response stood for the first one."),
  establishMs: ZStormPercentiles.nullable().describe("From the first byte sent to a usable stream."),
  firstEventMs: ZStormPercentiles.nullable().describe("From the GET to the stream's first event."),
  rssBytes: z
    .number()
    .nullable()
    .describe("The server's median RSS while the level was held (its first second left out)."),
  fds: z
    .number()
    .int()
    .nullable()
    .describe("The server's most open file descriptors while the level was held."),
  rssPerStreamBytes: z
    .number()
    .nullable()
    .describe("(rssBytes − idle RSS) ÷ established: what one open stream cost the server."),
  fdsAdded: z.number().int().nullable().describe("fds − idle descriptors."),
});

/**
 * A connection-storm cell's figures per level (@perflab/metrics' stormFigures, which the bench uses
 * too). RSS and descriptors are null where perflab cannot read them (a registered endpoint) or had
 * no reading in the level's hold; per-stream figures need an idle reading, taken before the first
 * level opened (in the warm-up).
 */
export const ZStormFigures = z.object({
  idle: z
    .object({ rssBytes: z.number(), fds: z.number().nullable() })
    .nullable()
    .describe("The server before the first stream: the median of the readings before the first level."),
  levels: z.array(ZStormLevel),
});

export type TStormPercentiles = z.infer<typeof ZStormPercentiles>;
export type TStormLevel = z.infer<typeof ZStormLevel>;
export type TStormFigures = z.infer<typeof ZStormFigures>;
