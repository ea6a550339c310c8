import type { TK6IntervalGroup } from "@perflab/contracts";
import { IngestError } from "./errors.ts";

/** What one (phase, method, tool) group adds up to over the whole output. */
export type GroupTally = {
  phase: string;
  method: string;
  tool: string;
  requests: number;
  failed: number;
  opErrors: number;
  latencies: number;
};

/** Adds one line's groups to the tallies; `latencies[j]` is how many the j-th group's histogram held. */
export function tallyGroups(
  tallies: Map<string, GroupTally>,
  groups: readonly TK6IntervalGroup[],
  latencies: readonly number[],
): void {
  groups.forEach((g, j) => {
    const key = JSON.stringify([g.phase, g.method, g.tool]);
    let tally = tallies.get(key);
    if (!tally) {
      tally = {
        phase: g.phase,
        method: g.method,
        tool: g.tool,
        requests: 0,
        failed: 0,
        opErrors: 0,
        latencies: 0,
      };
      tallies.set(key, tally);
    }
    tally.requests += g.requests;
    tally.failed += g.failed;
    tally.opErrors += g.opErrors;
    tally.latencies += latencies[j] ?? 0;
  });
}

/** How a refusal names a group of the output: its key, as the lines carry it. */
const groupField = (g: { phase: string; method: string; tool: string }) =>
  `group ${JSON.stringify({ phase: g.phase, method: g.method, tool: g.tool })}`;

/**
 * Refuses a group whose counts over the whole output contradict each other: more failed requests
 * or failed operations than requests, or histograms holding another number of latencies than the
 * requests (k6 records one duration per request). Over the whole output, not per second: an
 * operation's error is stamped a moment after its request, so it may fall in the next second.
 */
export function checkGroupTallies(tallies: Iterable<GroupTally>): void {
  for (const g of tallies) {
    const refuse = (message: string) =>
      new IngestError(
        `The k6 output contradicts itself: its ${g.phase} ${g.method || "(no method)"} requests${g.tool ? ` of ${g.tool}` : ""} ${message}.`,
        groupField(g),
        message,
      );
    if (g.failed > g.requests) {
      throw refuse(`count ${g.failed} failed but only ${g.requests} requests over the whole output`);
    }
    if (g.opErrors > g.requests) {
      throw refuse(
        `count ${g.opErrors} failed operations but only ${g.requests} requests over the whole output`,
      );
    }
    if (g.latencies !== g.requests) {
      throw refuse(
        `count ${g.requests} requests but their histograms hold ${g.latencies} latencies over the whole output`,
      );
    }
  }
}
