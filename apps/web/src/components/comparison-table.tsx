import {
  type ComparisonGroup,
  type ComparisonLevel,
  groupsAtLevel,
  levelKey,
  NOISY_CV,
  type Stat,
  type VersusFastest,
  versusFastest,
  versusKind,
  type Workload,
} from "@/lib/compare";
import { bytesToMb, formatPct, formatRate, formatRatio } from "@/lib/format";
import { capitalized, operationsName, operationWord } from "@/lib/labels";
import { levelHeading, msNumber, scale } from "./comparison-metrics";
import { table, tbody, td, tdNum, th, thNum } from "./ui";

/**
 * The level in a row's test id: its VUs as before the open model ("comparison-row-go-50"), "none"
 * without a level, "rate500" for an open-model level.
 */
const levelTestId = (level: ComparisonLevel) =>
  level.rate !== null ? `rate${level.rate}` : `${level.vus ?? "none"}`;

/** The interval as printed: a rate is never negative, so a wide interval of few rounds stops at 0. */
const interval = (s: Stat, format: (v: number) => string) =>
  s.ci95 ? `${format(Math.max(0, s.ci95[0]))}–${format(s.ci95[1])}` : "—";

const withSd = (s: Stat | null, format: (v: number) => string) =>
  s === null ? "—" : s.n > 1 ? `${format(s.mean)} ± ${format(s.sd)}` : format(s.mean);

/** The table's header: units in the workload's words ("requests/s" of an HTTP route, "calls/s" of tool calls). */
function RoundsTableHead({ scenario }: { scenario: string }) {
  const perSecond = `${operationWord(scenario)}/s`;
  return (
    <thead>
      <tr>
        <th className={th}>Load</th>
        <th className={th}>Server</th>
        <th className={thNum}>Rounds</th>
        <th
          className={thNum}
          title={`${operationsName(scenario)} per second: mean ± sample standard deviation`}
        >
          {capitalized(perSecond)}
        </th>
        <th className={thNum} title={`Coefficient of variation of the rounds' ${perSecond} (sd ÷ mean)`}>
          CV
        </th>
        <th className={thNum} title={`95 % confidence interval of the mean ${perSecond} (Student's t)`}>
          95 % CI
        </th>
        <th className={thNum} title={`Mean ${perSecond} ÷ the fastest server's at this load level`}>
          vs fastest
        </th>
        <th className={thNum}>p99 (ms)</th>
        <th className={thNum}>Peak MB</th>
        <th className={thNum} title={`${operationsName(scenario)} per second per core of server CPU`}>
          {capitalized(operationWord(scenario))}/CPU-s
        </th>
      </tr>
    </thead>
  );
}

/** How a group compares with the fastest at its level, or why throughput does not rank it. */
function VersusText({ kind, versus: v }: { kind: ReturnType<typeof versusKind>; versus: VersusFastest }) {
  return kind === "only" ? (
    "only result"
  ) : kind === "open" ? (
    <span title="Every server was offered the same rate: throughput does not rank them">—</span>
  ) : v.fastest ? (
    "fastest"
  ) : (
    <>
      {formatRatio(v.ratio)} ×
      {v.separation === "overlap" && (
        <span
          className="ml-1 text-zinc-500 dark:text-zinc-400"
          title="The 95 % intervals of the two means overlap: these rounds show no clear difference (more rounds may)"
        >
          (intervals overlap)
        </span>
      )}
    </>
  );
}

/** One server at one load level; `first` prints the level's heading on its first row only. */
function GroupRow({
  scenario,
  level,
  g,
  first,
  kind,
  v,
}: {
  scenario: string;
  level: ComparisonLevel;
  g: ComparisonGroup;
  first: boolean;
  kind: ReturnType<typeof versusKind>;
  v: VersusFastest;
}) {
  const cvNoisy = g.opsRps.cv !== null && g.opsRps.cv > NOISY_CV;
  return (
    <tr data-testid={`comparison-row-${g.serverName}-${levelTestId(level)}`}>
      <td className={`${td} text-zinc-500 dark:text-zinc-400`}>
        {first ? levelHeading(level, scenario) : ""}
      </td>
      <td className={`${td} font-medium`}>{g.serverName}</td>
      <td className={tdNum}>{g.rounds}</td>
      <td className={tdNum} data-testid="ops">
        {withSd(g.opsRps, formatRate)}
      </td>
      <td
        className={`${tdNum} ${cvNoisy ? "font-medium text-amber-700 dark:text-amber-400" : ""}`}
        data-testid="cv"
        data-noisy={cvNoisy || undefined}
      >
        {g.opsRps.cv === null ? "—" : formatPct(g.opsRps.cv * 100)}
        {cvNoisy && <span className="sr-only"> (noisy)</span>}
      </td>
      <td className={tdNum} data-testid="ci">
        {interval(g.opsRps, formatRate)}
      </td>
      <td
        className={tdNum}
        data-testid="versus"
        data-separation={kind === "ranked" ? (v.separation ?? undefined) : undefined}
      >
        <VersusText kind={kind} versus={v} />
      </td>
      <td className={tdNum}>{withSd(g.p99Ms, msNumber)}</td>
      <td className={tdNum}>
        {withSd(
          scale(g.rssPeakBytes, (b) => bytesToMb(b)!),
          formatRate,
        )}
      </td>
      <td className={tdNum}>{withSd(g.opsPerCpuSecond, formatRate)}</td>
    </tr>
  );
}

/**
 * The numbers behind the bars: per load level and server, the rounds' mean, spread, coefficient of
 * variation and the 95 % interval of the mean throughput, and how each compares with the fastest.
 */
export function RoundsTable({ workload }: { workload: Workload }) {
  const noisy = workload.groups.some((g) => g.opsRps.cv !== null && g.opsRps.cv > NOISY_CV);
  const multi = workload.groups.some((g) => g.rounds > 1);
  return (
    <div className="space-y-2">
      <div className="relative overflow-x-auto rounded-md border border-zinc-200 dark:border-zinc-800">
        <table className={table} data-testid="comparison-table">
          <RoundsTableHead scenario={workload.scenario} />
          <tbody className={tbody}>
            {workload.levels.flatMap((level) => {
              const groups = groupsAtLevel(workload.groups, level);
              const versus = versusFastest(groups);
              const kind = versusKind(groups);
              return groups.map((g, i) => (
                <GroupRow
                  key={`${levelKey(level)}:${g.serverName}`}
                  scenario={workload.scenario}
                  level={level}
                  g={g}
                  first={i === 0}
                  kind={kind}
                  v={versus.get(g)!}
                />
              ));
            })}
          </tbody>
        </table>
      </div>
      {!multi && (
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          One round per server and level: no spread or interval. Queue several rounds (they interleave, so the
          machine&rsquo;s drift spreads across servers) to see which differences are more than noise.
        </p>
      )}
      {noisy && (
        <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-noisy">
          Rounds disagree by more than {NOISY_CV * 100} % (CV) where marked: add rounds or quiet the machine
          before trusting that ranking.
        </p>
      )}
    </div>
  );
}
