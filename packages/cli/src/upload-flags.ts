import { defined, type Env, gitFields, type Str } from "./flag-values.ts";
import { pickedScenario, uploadCall } from "./scenario-flags.ts";

/** `perflab upload`'s flags as the upload's query: text as given, the API reads and judges it. */
export function uploadQuery(values: Record<string, unknown>, env: Env): Record<string, string> {
  const str: Str = (key) => values[key] as string | undefined;
  const g = gitFields(values, env);
  return defined({
    server: str("server"),
    durationSec: str("duration"),
    warmupSec: str("warmup"),
    scenario: str("scenario") ?? pickedScenario(str),
    ...uploadCall(str),
    vus: str("vus"),
    rate: str("rate"),
    maxVus: str("max-vus"),
    driver: str("driver"),
    name: str("name"),
    baselineRunId: str("baseline"),
    format: str("format"),
    gitRepo: g.repo,
    gitBranch: g.branch,
    gitCommit: g.commit,
    gitPr: g.pr,
  }) as Record<string, string>;
}

/**
 * From k6's end-of-test summary (SUMMARY_PATH): its own count of measured requests, which makes the
 * upload refuse output that lost lines, and the calls an open-model script dropped over the whole
 * test, which the upload stores only for an older output whose lines carry no per-second drops.
 */
export function countsFromK6Summary(summary: unknown): { k6Requests?: string; droppedCalls?: string } {
  const metrics = (summary as { metrics?: Record<string, { values?: { count?: unknown } }> } | null)?.metrics;
  const count = (name: string) => {
    const value = metrics?.[name]?.values?.count;
    return typeof value === "number" && Number.isInteger(value) ? String(value) : undefined;
  };
  return defined({
    k6Requests: count("http_reqs{phase:measure}"),
    droppedCalls: count("dropped_iterations"),
  });
}
