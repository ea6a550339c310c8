import Link from "next/link";
import { formatMb, formatMs, formatRate } from "@/lib/format";
import { capitalized, levelLabel, workloadName } from "@/lib/labels";
import type { VerdictDto } from "@/server/operations/get-verdict";
import { link, scrollPanel, table, tbody, td, tdNum, th, thNum } from "./ui";

/** Tolerances the panel offers besides any `?tolerance=` in the address. */
const TOLERANCE_CHOICES = [5, 10, 20] as const;

const metricLabel = { opsRps: "ops/s", p99Ms: "p99", rssPeakBytes: "peak RSS", errorPct: "errors" } as const;

const show = (metric: keyof typeof metricLabel, value: number) =>
  metric === "opsRps"
    ? formatRate(value)
    : metric === "p99Ms"
      ? formatMs(value)
      : metric === "errorPct"
        ? `${value.toFixed(2)} %`
        : formatMb(value);

const outcomeStyle: Record<VerdictDto["outcome"], string> = {
  pass: "bg-emerald-100 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-800",
  fail: "bg-rose-100 text-rose-800 ring-rose-300 dark:bg-rose-950 dark:text-rose-300 dark:ring-rose-800",
  inconclusive:
    "bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700",
};

const checkStyle: Record<VerdictDto["checks"][number]["outcome"], string> = {
  regressed: "font-medium text-rose-700 dark:text-rose-400",
  improved: "font-medium text-emerald-700 dark:text-emerald-400",
  unchanged: "text-zinc-500 dark:text-zinc-400",
  unclear: "text-amber-700 dark:text-amber-400",
};

/**
 * The run judged against its baseline (GET /api/v1/runs/:id/verdict): the outcome, then every
 * check, regressions first, and what could not be matched or was not measured alike.
 */
export function VerdictPanel({ verdict }: { verdict: VerdictDto }) {
  const order = { regressed: 0, improved: 1, unclear: 2, unchanged: 3 };
  const checks = [...verdict.checks].sort((a, b) => order[a.outcome] - order[b.outcome]);
  // Each distinct note once, numbered in the table's order: its rows point to it by number.
  const notes = [...new Set(checks.flatMap((c) => (c.note ? [c.note] : [])))];
  const noteNumber = (note: string) => notes.indexOf(note) + 1;
  const unclear = checks.filter((c) => c.outcome === "unclear").length;
  return (
    <section className="space-y-3" data-testid="verdict" data-outcome={verdict.outcome}>
      <div className="flex flex-wrap items-center gap-3">
        <h2 className="text-lg font-semibold">Against the baseline</h2>
        <span
          className={`rounded-full px-2.5 py-0.5 text-xs font-semibold uppercase ring-1 ring-inset ${outcomeStyle[verdict.outcome]}`}
        >
          {verdict.outcome}
        </span>
        {unclear > 0 && (
          <span className="text-sm text-amber-700 dark:text-amber-400" data-testid="verdict-unclear">
            {unclear === 1 ? "1 check" : `${unclear} checks`} unclear: see the notes below the table
          </span>
        )}
        <span className="text-sm text-zinc-500 dark:text-zinc-400">
          baseline{" "}
          <Link className={link} href={`/runs/${verdict.baselineRunId}`}>
            {verdict.baselineRunId}
          </Link>
          , tolerance {verdict.tolerancePct} %
        </span>
        <span className="text-sm text-zinc-500 dark:text-zinc-400" data-testid="tolerance-choices">
          judge at{" "}
          {TOLERANCE_CHOICES.map((pct, i) => (
            <span key={pct}>
              {i > 0 && " · "}
              {pct === verdict.tolerancePct ? (
                <span className="font-medium text-zinc-900 dark:text-zinc-100">{pct} %</span>
              ) : (
                <Link className={link} href={`?tolerance=${pct}`} scroll={false}>
                  {pct} %
                </Link>
              )}
            </span>
          ))}
        </span>
      </div>
      {checks.length > 0 && (
        <div className={scrollPanel}>
          <table className={table}>
            <thead>
              <tr>
                <th className={th}>Server</th>
                <th className={th}>Workload</th>
                <th className={th}>Load</th>
                <th className={th}>Metric</th>
                <th className={thNum}>Baseline</th>
                <th className={thNum}>This run</th>
                <th className={thNum}>Change</th>
                <th className={th}>Outcome</th>
              </tr>
            </thead>
            <tbody className={tbody}>
              {checks.map((c) => (
                <tr key={`${c.server}:${JSON.stringify(c.params)}:${c.vus}:${c.rate}:${c.metric}`}>
                  <td className={`${td} font-medium`}>{c.server}</td>
                  <td className={td}>{workloadName(c)}</td>
                  <td className={td}>{levelLabel(c) ?? "—"}</td>
                  <td className={td}>{metricLabel[c.metric]}</td>
                  <td className={tdNum}>
                    {show(c.metric, c.baseline.mean)}
                    {c.baseline.n > 1 && (
                      <span className="text-zinc-500 dark:text-zinc-400"> ×{c.baseline.n}</span>
                    )}
                  </td>
                  <td className={tdNum}>
                    {show(c.metric, c.candidate.mean)}
                    {c.candidate.n > 1 && (
                      <span className="text-zinc-500 dark:text-zinc-400"> ×{c.candidate.n}</span>
                    )}
                  </td>
                  <td className={tdNum}>
                    {c.changePct >= 0 ? "+" : ""}
                    {c.changePct.toFixed(1)} {c.metric === "errorPct" ? "pts" : "%"}
                  </td>
                  <td className={`${td} ${checkStyle[c.outcome]}`}>
                    {c.outcome}
                    {c.note && (
                      <sup className="ml-0.5 text-xs font-semibold">
                        <a
                          href={`#verdict-note-${noteNumber(c.note)}`}
                          className="underline decoration-dotted underline-offset-2"
                          aria-label={`note ${noteNumber(c.note)}: ${c.note}`}
                        >
                          {noteNumber(c.note)}
                        </a>
                      </sup>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {notes.length > 0 && (
        <ol className="space-y-0.5 text-sm text-zinc-600 dark:text-zinc-400" data-testid="verdict-notes">
          {notes.map((note, i) => (
            <li key={note} id={`verdict-note-${i + 1}`} className="scroll-mt-20">
              <span className="mr-1.5 font-medium tabular-nums">{i + 1}.</span>
              {capitalized(note)}.
            </li>
          ))}
        </ol>
      )}
      {(verdict.failed.length > 0 ||
        verdict.unmatched.length > 0 ||
        (verdict.notMeasured?.length ?? 0) > 0 ||
        verdict.environment.length > 0) && (
        <ul className="list-inside list-disc text-sm text-zinc-600 dark:text-zinc-400">
          {verdict.failed.map((f) => (
            <li
              key={`failed:${f.server}:${JSON.stringify(f.params)}:${f.vus}:${f.rate}`}
              className="font-medium text-rose-700 dark:text-rose-400"
              data-testid="verdict-failed"
            >
              Failed here, measured in the baseline: {f.server} · {workloadName(f)} · {levelLabel(f) ?? "—"} (
              {f.cells === 1 ? "1 cell" : `${f.cells} cells`}
              {f.error ? `: ${f.error}` : ""})
            </li>
          ))}
          {verdict.unmatched.map((u) => (
            <li key={`${u.in}:${u.server}:${JSON.stringify(u.params)}:${u.vus}:${u.rate}`}>
              Only in {u.in === "baseline" ? "the baseline" : "this run"}: {u.server} · {workloadName(u)} ·{" "}
              {levelLabel(u) ?? "—"}
            </li>
          ))}
          {verdict.notMeasured?.map((n) => (
            <li
              key={`unmeasured:${n.server}:${JSON.stringify(n.params)}:${n.vus}:${n.rate}`}
              data-testid="verdict-not-measured"
            >
              Not judged on peak RSS: {n.server} · {workloadName(n)} · {levelLabel(n) ?? "—"} (a registered
              endpoint: its memory is not measured)
            </li>
          ))}
          {verdict.environment.map((e) => (
            <li key={e.aspect} className="text-amber-700 dark:text-amber-400">
              The two runs differ in {e.aspect}: {e.variants.map((v) => v.label).join(" | ")}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
