import {
  type Figure,
  findStudy,
  type PublishedFigures,
  type StudyRowPlan,
  studyRows,
  type TMatrixSpecInput,
  workloadKeyOf,
} from "@perflab/contracts";
import type { CellDto } from "./dto";

/** The figures a study can print that the lab measures the same way, best first when choosing one. */
const METRICS = ["rps", "p99Ms", "p95Ms", "p50Ms", "avgMs", "ramMb", "firstEventMs"] as const;
export type StudyMetric = (typeof METRICS)[number];

export const metricLabel: Record<StudyMetric, string> = {
  rps: "requests/s",
  p99Ms: "p99 ms",
  p95Ms: "p95 ms",
  p50Ms: "p50 ms",
  avgMs: "mean latency ms",
  ramMb: "memory MB",
  firstEventMs: "time to first event ms",
};

export type BesideRow = {
  label: string;
  server: string | null;
  extra: boolean;
  differs: string | null;
  missing: string | null;
  /** As printed (a range stays a range), and the number ranked and compared (a range's middle). */
  published: Figure | null;
  publishedValue: number | null;
  lab: number | null;
  /** Each side's value as a share of its best row: 1 for the best, 0.5 for half as good. */
  studyShare: number | null;
  labShare: number | null;
  /** What may explain a difference: the load generator saturated, a warming JIT, failed calls. */
  flags: string[];
  rounds: number;
};

export type BesideTable = {
  scenario: number;
  level: { vus: number | null; rate: number | null };
  metric: StudyMetric;
  rows: BesideRow[];
  /** Rows both sides measured, and the pairs the lab orders the other way round. */
  compared: number;
  swapped: [string, string][];
  note: string | null;
};

const higherIsBetter = (metric: StudyMetric) => metric === "rps";
const middle = (f: Figure) => (typeof f === "number" ? f : (f[0] + f[1]) / 2);
const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

type Level = { vus: number | null; rate: number | null };
const levelsOf = (spec: Pick<TMatrixSpecInput, "loadLevels">): Level[] =>
  spec.loadLevels.map((l) => ({
    vus: l.vus !== undefined ? Number(l.vus) : null,
    rate: l.rate !== undefined ? Number(l.rate) : null,
  }));

/** The published figures of a row for one workload and level: exact matches first, then the study's whole. */
function publishedFor(row: StudyRowPlan, scenario: number, level: Level): PublishedFigures | null {
  const fits = (c: StudyRowPlan["published"][number]) =>
    (c.scenario === undefined || c.scenario === scenario) &&
    (c.vus === undefined || c.vus === level.vus) &&
    (c.rate === undefined || c.rate === level.rate);
  return row.published.find(fits)?.figures ?? null;
}

/** The lab's figure for a metric over a server's succeeded rounds (percentiles: the median round's). */
function labValue(metric: StudyMetric, rounds: CellDto[]): number | null {
  const summaries = rounds.flatMap((c) => (c.summary ? [c.summary] : []));
  if (summaries.length === 0) return null;
  const pick = (read: (s: (typeof summaries)[number]) => number | null) => {
    const values = summaries.map(read).filter((v): v is number => v !== null);
    return values.length ? values : null;
  };
  switch (metric) {
    case "rps":
      return mean(summaries.map((s) => s.opsRps));
    case "avgMs":
      return ((v) => v && mean(v))(pick((s) => s.latency.avgMs));
    case "p50Ms":
      return ((v) => v && median(v))(pick((s) => s.latency.p50));
    case "p95Ms":
      return ((v) => v && median(v))(pick((s) => s.latency.p95));
    case "p99Ms":
      return ((v) => v && median(v))(pick((s) => s.latency.p99));
    case "ramMb":
      return ((v) => v && mean(v) / 2 ** 20)(pick((s) => s.rssPeakBytes));
    case "firstEventMs":
      return null;
  }
}

function flagsOf(rounds: CellDto[]): string[] {
  const flags: string[] = [];
  const count = (n: number, what: string) =>
    n > 0 && flags.push(`${what}${rounds.length > 1 ? ` (${n} of ${rounds.length} rounds)` : ""}`);
  count(rounds.filter((c) => c.k6Saturated).length, "k6 saturated");
  count(rounds.filter((c) => c.warmingUp === true).length, "still warming up");
  count(rounds.filter((c) => c.machineBusy === true).length, "machine busy");
  const failed = rounds.filter((c) => c.summary && c.summary.errors > 0).length;
  count(failed, "failed calls");
  return flags;
}

/** Each value as a share of the best of its column (1 = best), for the metric's direction. */
function shares(values: (number | null)[], metric: StudyMetric): (number | null)[] {
  const present = values.filter((v): v is number => v !== null && v > 0);
  if (present.length === 0) return values.map(() => null);
  const best = higherIsBetter(metric) ? Math.max(...present) : Math.min(...present);
  return values.map((v) => (v === null || v <= 0 ? null : higherIsBetter(metric) ? v / best : best / v));
}

/** Pairs of rows the two sides order differently (ties on either side are not a disagreement). */
function swappedPairs(rows: BesideRow[]): [string, string][] {
  const both = rows.filter((r) => !r.extra && r.publishedValue !== null && r.lab !== null);
  const pairs: [string, string][] = [];
  for (let i = 0; i < both.length; i++) {
    for (let j = i + 1; j < both.length; j++) {
      const a = both[i]!;
      const b = both[j]!;
      const study = Math.sign(a.publishedValue! - b.publishedValue!);
      const lab = Math.sign(a.lab! - b.lab!);
      if (study !== 0 && lab !== 0 && study !== lab) pairs.push([a.label, b.label]);
    }
  }
  return pairs;
}

function chooseMetric(rows: StudyRowPlan[], scenario: number, level: Level): StudyMetric | null {
  for (const metric of METRICS) {
    if (rows.some((r) => publishedFor(r, scenario, level)?.[metric] !== undefined)) return metric;
  }
  return null;
}

/**
 * A study's published figures beside what this run measured, one table per workload and load level:
 * every row the study printed (run here or not, and why), the lab's extra servers, each side's share
 * of its best row, and the pairs of rows the lab orders the other way round.
 */
export function studyBeside(
  spec: Pick<TMatrixSpecInput, "study" | "scenarios" | "loadLevels" | "servers">,
  cells: CellDto[],
): BesideTable[] {
  const study = spec.study ? findStudy(spec.study.id) : undefined;
  if (!study) return [];
  const plans = studyRows(study, spec.servers, () => "not in this run");
  const tables: BesideTable[] = [];
  spec.scenarios.forEach((scenario, index) => {
    const key = workloadKeyOf(scenario.id, scenario.params ?? {});
    for (const level of levelsOf(spec)) {
      const metric = chooseMetric(plans, index, level);
      if (!metric) continue;
      const rows = plans.map((plan) => besideRow(plan, metric, index, level, cells, key));
      const studyShares = shares(
        rows.map((r) => r.publishedValue),
        metric,
      );
      const labShares = shares(
        rows.map((r) => r.lab),
        metric,
      );
      rows.forEach((r, i) => {
        r.studyShare = studyShares[i] ?? null;
        r.labShare = labShares[i] ?? null;
      });
      const note = plans.map((p) => publishedFor(p, index, level)?.note).find(Boolean) ?? null;
      const compared = rows.filter((r) => !r.extra && r.publishedValue !== null && r.lab !== null).length;
      tables.push({
        scenario: index,
        level,
        metric,
        rows,
        compared,
        swapped: swappedPairs(rows),
        note: note ?? null,
      });
    }
  });
  return tables;
}

function besideRow(
  plan: StudyRowPlan,
  metric: StudyMetric,
  scenario: number,
  level: Level,
  cells: CellDto[],
  workload: string,
): BesideRow {
  const published = publishedFor(plan, scenario, level)?.[metric] ?? null;
  const rounds = cells.filter(
    (c) =>
      c.serverName === plan.server &&
      c.status === "succeeded" &&
      c.summary !== null &&
      (c.rate ?? null) === level.rate &&
      (level.rate !== null || c.vus === level.vus) &&
      workloadKeyOf(c.scenario, c.params ?? {}) === workload,
  );
  return {
    label: plan.label,
    server: plan.server,
    extra: plan.extra,
    differs: plan.differs,
    missing: plan.missing,
    published: typeof published === "number" || Array.isArray(published) ? (published as Figure) : null,
    publishedValue: published === null ? null : middle(published as Figure),
    lab: labValue(metric, rounds),
    studyShare: null,
    labShare: null,
    flags: flagsOf(rounds),
    rounds: rounds.length,
  };
}
