import type { TUploadQuery } from "@perflab/contracts";
import type { ParsedK6Output } from "./decoder.ts";
import { IngestError } from "./errors.ts";

/** Seconds of leeway at each end of the window: k6 starts mid-second and its last second may be partial. */
const EDGE_SECONDS = 2;

/**
 * Refuses a `durationSec` the output contradicts, since the summary's rates divide by it. Both rules
 * hold for any genuine run of a perflab scenario script, whatever the server did:
 *
 * - Too long: k6 writes a line for every second the test runs (its VU count is sampled each second,
 *   so a stalled server's seconds have lines too), and the test starts after the start line. So the
 *   lines reach at least warmupSec + durationSec past the start line, less EDGE_SECONDS.
 * - Too short: every iteration starts within the test, whose measured part begins at or before the
 *   first second with a measured request and lasts durationSec. An iteration that ends more than
 *   EDGE_SECONDS after that was in flight when the test ended: at most one per VU (for the open
 *   model, the VUs k6 reported plus the calls it starts in the two seconds between samples). More
 *   iterations ending that late mean the measured window was longer than durationSec. Not the
 *   measured requests' span: k6 lets iterations in flight finish (for up to 30 s), so a slow
 *   server's last requests end well after the window.
 */
export function checkDuration(
  output: Pick<ParsedK6Output, "start" | "lastT" | "measured" | "iterationsBySecond" | "peakVus">,
  meta: Pick<TUploadQuery, "durationSec" | "warmupSec" | "vus" | "rate" | "maxVus">,
): void {
  const { durationSec, warmupSec } = meta;
  const covered = output.lastT + 1 - output.start.t / 1000;
  if (warmupSec + durationSec > covered + EDGE_SECONDS) {
    const upTo = Math.max(0, Math.floor(covered + EDGE_SECONDS - warmupSec));
    throw new IngestError(
      `durationSec is ${durationSec} s, but the k6 output's lines end ${Math.floor(covered)} s after its start line` +
        `${warmupSec > 0 ? `, warm-up (warmupSec ${warmupSec} s) included` : ""}: k6 writes a line every second it runs, ` +
        "so it measured for less time than that, and the summary's rates would be too low.",
      "durationSec",
      `must be at most ${upTo} s, the time the output covers after the warm-up`,
    );
  }
  if (!output.measured) return;
  const lateFrom = output.measured.firstT + durationSec + EDGE_SECONDS;
  let late = 0;
  for (const [t, iterations] of output.iterationsBySecond) if (t >= lateFrom) late += iterations;
  const inFlight = Math.max(output.peakVus, meta.vus ?? 0, meta.maxVus ?? 0) + 2 * (meta.rate ?? 0);
  if (late > inFlight) {
    const span = output.measured.lastT - output.measured.firstT + 1;
    throw new IngestError(
      `durationSec is ${durationSec} s, but the k6 output's measured requests span ${span} s, and ${late} iterations ` +
        `ended more than ${durationSec + EDGE_SECONDS} s after the first measured second: k6 starts none after the ` +
        `measured window, and at most ${inFlight} can have been in flight at its end (one per VU). The window was ` +
        "longer than durationSec, and the summary's rates would be too high.",
      "durationSec",
      `is shorter than the measured window: ${late} iterations ended after it, more than the ${inFlight} in flight at its end`,
    );
  }
}
