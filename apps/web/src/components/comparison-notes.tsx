import type { EnvironmentDifference, Workload } from "@/lib/compare";
import { levelLabel, operationsName, operationWord } from "@/lib/labels";

/**
 * The bars with rounds flagged by `count`, named for a note ("go at 10 VUs (1 of 3 rounds), rust"),
 * or null if none was.
 */
function flaggedGroups(
  workload: Workload,
  count: "k6SaturatedRounds" | "machineBusyRounds" | "warmingUpRounds",
): string | null {
  const flagged = workload.groups.filter((g) => g[count] > 0);
  if (flagged.length === 0) return null;
  return flagged
    .map((g) => {
      const level = levelLabel({ ...g, scenario: workload.scenario });
      return `${g.serverName}${level === null ? "" : ` at ${level}`}${
        g.rounds > 1 ? ` (${g[count]} of ${g.rounds} rounds)` : ""
      }`;
    })
    .join(", ");
}

/**
 * Names the bars whose calls failed: ops/s counts every call that ended, so a server answering fast
 * with errors would otherwise look fast.
 */
export function FailedCallsNote({ workload }: { workload: Workload }) {
  const failing = workload.groups.filter((g) => (g.failedCallsPct?.mean ?? 0) > 0);
  if (failing.length === 0) return null;
  const named = failing
    .map((g) => {
      const level = levelLabel({ ...g, scenario: workload.scenario });
      const pct = g.failedCallsPct!.mean;
      return `${g.serverName}${level === null ? "" : ` at ${level}`} (${pct < 0.1 ? pct.toPrecision(1) : pct.toFixed(1)} %)`;
    })
    .join(", ");
  return (
    <p className="text-sm text-red-700 dark:text-red-400" data-testid="comparison-failed-calls">
      Some {operationWord(workload.scenario, 2)} failed for {named}: throughput counts the failed ones too, so
      it overstates what those servers did. The cells&rsquo; errors are on the run page.
    </p>
  );
}

/**
 * Names the bars whose throughput k6 capped: there ops/s says how fast the load generator was, and
 * only the per-CPU-second figure still compares the servers.
 */
export function SaturationNote({ workload }: { workload: Workload }) {
  const capped = flaggedGroups(workload, "k6SaturatedRounds");
  if (capped === null) return null;
  return (
    <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-saturated">
      k6 was saturated for {capped}: the load generator, not the server, set that throughput. Compare those
      servers by {operationsName(workload.scenario)} per CPU-second, or give k6 more room (fewer server cores
      under the docker driver, or k6 on another machine).
    </p>
  );
}

/**
 * Names the bars measured while other work took a quarter of the machine or more: the server and
 * k6 competed with it, so those numbers are the machine's as much as the server's.
 */
export function BusyMachineNote({ workload }: { workload: Workload }) {
  const busy = flaggedGroups(workload, "machineBusyRounds");
  if (busy === null) return null;
  return (
    <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-machine-busy">
      The machine was busy with other work while perflab measured {busy}: other processes used a quarter of it
      or more, and the server and k6 competed with them. Run those cells again on a quiet machine before
      comparing them.
    </p>
  );
}

/**
 * Names the bars whose server was still getting faster while they measured: their numbers hold the
 * end of a warm-up (a JIT's first minute) and understate the server against those already steady.
 */
export function WarmingUpNote({ workload }: { workload: Workload }) {
  const warming = flaggedGroups(workload, "warmingUpRounds");
  if (warming === null) return null;
  return (
    <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="comparison-warming-up">
      The server was still getting faster while perflab measured {warming}: the last tenth of the measured
      window made a quarter more {operationWord(workload.scenario, 2)} per second than the first or more (a
      JIT compiling, caches filling). Those bars hold the end of a warm-up; queue them again with a longer
      one.
    </p>
  );
}

/**
 * Names the servers perflab loaded but does not run (registered endpoints): their CPU and memory
 * bars are missing because nothing measured them, not because they used none.
 */
export function UnmeasuredNote({ workload }: { workload: Workload }) {
  const servers = [
    ...new Set(workload.groups.filter((g) => g.unmeasured.length > 0).map((g) => g.serverName)),
  ];
  if (servers.length === 0) return null;
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="comparison-unmeasured">
      {servers.join(", ")} {servers.length === 1 ? "is a registered endpoint" : "are registered endpoints"}:
      perflab loads {servers.length === 1 ? "it" : "them"} but does not run{" "}
      {servers.length === 1 ? "its" : "their"} process, so CPU, memory and {operationsName(workload.scenario)}{" "}
      per CPU-second are not measured there (no bar, not a zero).
    </p>
  );
}

/**
 * Under the open model k6 offers a fixed rate: throughput there says whether a server kept up, not
 * how fast it can go.
 */
export function OpenModelNote({ workload }: { workload: Workload }) {
  if (!workload.levels.some((l) => l.rate !== null)) return null;
  const ops = operationWord(workload.scenario);
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="comparison-open-model">
      At {ops}/s levels (open model) k6 starts {ops} at a fixed rate: throughput shows whether a server kept
      up with it, not how fast it could go. Compare those servers by latency, memory and{" "}
      {operationsName(workload.scenario)} per CPU-second.
    </p>
  );
}

const aspectText: Record<EnvironmentDifference["aspect"], string> = {
  machine: "different machines",
  k6: "different k6 builds",
  limits: "different limits",
  window: "different measured windows",
  runtime: "a server under different runtime versions",
};

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * Warns when the cells side by side did not run alike: several worker hosts share one queue, so a
 * run's cells can land on different machines, and a ranking across machines measures the machines.
 */
export function EnvironmentNote({ differences }: { differences: EnvironmentDifference[] }) {
  if (differences.length === 0) return null;
  return (
    <div
      role="note"
      data-testid="comparison-environment"
      className="space-y-1 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200"
    >
      <p className="font-medium">
        These results were not all measured alike: {differences.map((d) => aspectText[d.aspect]).join(", ")}.
        Compare servers only within cells that share them (each cell&rsquo;s environment is on its run page).
      </p>
      <ul className="list-disc pl-5">
        {differences.flatMap((d) =>
          d.variants.map((v) => (
            <li key={`${d.aspect}:${v.label}`} data-aspect={d.aspect}>
              {v.label}: {plural(v.cells, "cell")} ({v.servers.join(", ")})
            </li>
          )),
        )}
      </ul>
    </div>
  );
}
