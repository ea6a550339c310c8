import { failedCallsPct } from "@perflab/contracts";
import { opsPerCpuSecond, type Spread, spreadOf } from "@perflab/metrics/stats";
import type { CellDto, CellStatus, RunDto } from "./dto";
import { formatGib } from "./format";
import { type CellNumbering, operationWord, sharedScenario, vusLabel } from "./labels";

/**
 * One measure over the rounds of a server × load level: what the comparison charts draw (mean,
 * min–max) and its table prints (sd, CV, 95 % interval of the mean).
 */
export type Stat = Spread;

/**
 * A load level of either model: closed `vus` (that many VUs back to back) or open `rate` (tool calls
 * started per second); the other is null, and both are for a cell without a level.
 */
export type ComparisonLevel = { vus: number | null; rate: number | null };

export type ComparisonGroup = ComparisonLevel & {
  serverName: string;
  /** Succeeded cells with a summary, one per round. */
  rounds: number;
  /** MCP tool calls per second (the summary table's "Ops/s"). */
  opsRps: Stat;
  /** p99 latency of the measured window, ms. */
  p99Ms: Stat | null;
  /** Peak server RSS, bytes. */
  rssPeakBytes: Stat | null;
  /**
   * Tool calls per second of server CPU (ops/s ÷ the server's mean CPU in cores): how much work a
   * server does for its CPU, comparable even where k6, not the server, set the throughput.
   */
  opsPerCpuSecond: Stat | null;
  /**
   * The share of calls that failed, in percent (`failedCallsPct`): ops/s counts every call that
   * ended, failed ones too, so a server that answers fast with errors must not read as fast.
   */
  failedCallsPct: Stat | null;
  /** Rounds whose load generator was saturated: their throughput is k6's ceiling, not the server's. */
  k6SaturatedRounds: number;
  /** Rounds measured while other work took a quarter of the machine or more (`CellDto.machineBusy`). */
  machineBusyRounds: number;
  /** Rounds whose server was still getting faster while they measured (`CellDto.warmingUp`). */
  warmingUpRounds: number;
};

/** Cells that measure the same thing: one scenario with the same parameters. */
export type Workload = {
  key: string;
  scenario: string;
  tool: string | null;
  params: Record<string, unknown>;
  servers: string[];
  /** Closed-model levels by VUs, then open-model levels by rate, then a level of neither. */
  levels: ComparisonLevel[];
  groups: ComparisonGroup[];
};

export type MissingCell = Pick<
  CellDto,
  "index" | "serverName" | "scenario" | "vus" | "rate" | "round" | "status" | "error"
> &
  CellNumbering;

/** A cell of a comparison of runs: `index` unique among all runs, `shownIndex` its run's own. */
export type MergedCell = CellDto & { shownIndex: number };

export type Comparison = {
  /** Every server of the run, in the run's order: the order of the bars and legends. */
  servers: string[];
  workloads: Workload[];
  /** Failed or cancelled: no result to compare. */
  missing: MissingCell[];
  /** Queued, running, or succeeded with its summary not loaded yet: not in the charts yet. */
  pending: number;
};

const openStatuses: CellStatus[] = ["queued", "running"];

/** The rounds' spread: mean, sample sd, CV, 95 % interval, min and max; null when there is no value. */
export const stat = spreadOf;

/** Rounds whose ops/s disagree by more than this (sd ÷ mean) are flagged noisy. */
export const NOISY_CV = 0.1;

const toolOf = (cell: Pick<CellDto, "params">) => {
  const tool = (cell.params as { tool?: unknown } | null)?.tool;
  return typeof tool === "string" ? tool : null;
};

export const workloadKey = (cell: Pick<CellDto, "scenario" | "params">) =>
  `${cell.scenario}\u0000${JSON.stringify(cell.params ?? {})}`;

/** A cell's (or group's) load level; an absent rate (a cell frozen in an old report) reads as none. */
export function levelOf(cell: { vus: number | null; rate?: number | null }): ComparisonLevel {
  const rate = cell.rate ?? null;
  return rate !== null ? { vus: null, rate } : { vus: cell.vus, rate: null };
}

/** Tells load levels apart across models: "vus:50", "rate:50", "none" (as contracts' loadLevelKey). */
export function levelKey(level: { vus: number | null; rate?: number | null }): string {
  const { vus, rate } = levelOf(level);
  return rate !== null ? `rate:${rate}` : vus !== null ? `vus:${vus}` : "none";
}

/** Closed-model levels by VUs, then open-model levels by rate, then a level of neither. */
export function levelOrder(a: ComparisonLevel, b: ComparisonLevel): number {
  const rank = (l: ComparisonLevel) => (l.rate !== null ? 1 : l.vus !== null ? 0 : 2);
  const value = (l: ComparisonLevel) => l.rate ?? l.vus ?? 0;
  return rank(a) - rank(b) || value(a) - value(b);
}

/** A workload's groups at one load level, in server order. */
export function groupsAtLevel(groups: ComparisonGroup[], level: ComparisonLevel): ComparisonGroup[] {
  const key = levelKey(level);
  return groups.filter((g) => levelKey(g) === key);
}

/** The run's servers that have cells, in the run's order (its spec), then any other: bars follow it. */
export function runServers(cells: Pick<CellDto, "serverName">[], serverOrder: string[] = []): string[] {
  return [...new Set([...serverOrder, ...cells.map((c) => c.serverName)])].filter((name) =>
    cells.some((c) => c.serverName === name),
  );
}

/**
 * Groups a run's cells by workload × server × load level and aggregates the rounds. Only succeeded
 * cells with a summary count; `serverOrder` (the run's spec) fixes the order of the bars.
 */
export function compareCells(cells: (CellDto & CellNumbering)[], serverOrder: string[] = []): Comparison {
  const servers = runServers(cells, serverOrder);
  const missing: MissingCell[] = [];
  let pending = 0;
  const byWorkload = new Map<string, CellDto[]>();
  for (const cell of [...cells].sort((a, b) => a.index - b.index)) {
    // A cell the stream reports succeeded gets its summary with the page's next refresh.
    if (openStatuses.includes(cell.status) || (cell.status === "succeeded" && cell.summary === null)) {
      pending++;
      continue;
    }
    if (cell.status !== "succeeded" || cell.summary === null) {
      const { index, shownIndex, serverName, scenario, round, status, error } = cell;
      missing.push({ index, shownIndex, serverName, scenario, ...levelOf(cell), round, status, error });
      continue;
    }
    const key = workloadKey(cell);
    byWorkload.set(key, [...(byWorkload.get(key) ?? []), cell]);
  }

  const workloads: Workload[] = [...byWorkload].map(([key, done]) => {
    const levels = [...new Map(done.map((c) => [levelKey(c), levelOf(c)])).values()].sort(levelOrder);
    const groups: ComparisonGroup[] = [];
    for (const level of levels) {
      const key = levelKey(level);
      for (const serverName of servers) {
        const rounds = done.filter((c) => levelKey(c) === key && c.serverName === serverName);
        const opsRps = stat(rounds.map((c) => c.summary!.opsRps));
        if (!opsRps) continue;
        groups.push({
          serverName,
          ...level,
          rounds: rounds.length,
          opsRps,
          p99Ms: stat(rounds.map((c) => c.summary!.latency.p99)),
          rssPeakBytes: stat(rounds.map((c) => c.summary!.rssPeakBytes)),
          opsPerCpuSecond: stat(rounds.map((c) => opsPerCpuSecond(c.summary!))),
          failedCallsPct: stat(rounds.map((c) => failedCallsPct(c.summary!))),
          k6SaturatedRounds: rounds.filter((c) => c.k6Saturated).length,
          // A report frozen before the flag existed has none.
          machineBusyRounds: rounds.filter((c) => c.machineBusy === true).length,
          warmingUpRounds: rounds.filter((c) => c.warmingUp === true).length,
        });
      }
    }
    const first = done[0]!;
    return {
      key,
      scenario: first.scenario,
      tool: toolOf(first),
      params: first.params ?? {},
      servers: servers.filter((s) => groups.some((g) => g.serverName === s)),
      levels,
      groups,
    };
  });
  return { servers, workloads, missing, pending };
}

/**
 * The comparison is worth showing when the run spans more than one server or load level (of either
 * model: 50 VUs and 50 calls/s are two levels).
 */
export function isComparable(
  cells: (Pick<CellDto, "serverName" | "vus"> & { rate?: number | null })[],
): boolean {
  return new Set(cells.map((c) => c.serverName)).size > 1 || new Set(cells.map((c) => levelKey(c))).size > 1;
}

/** Where a server × load level stands against the fastest server at that level. */
export type VersusFastest = {
  /** This group's mean ops/s ÷ the fastest group's (1 for the fastest itself). */
  ratio: number;
  fastest: boolean;
  /**
   * "apart" when the 95 % intervals of the two means do not overlap (a conservative test: the
   * difference is clear), "overlap" when they do (these rounds show no clear difference; more
   * rounds may), null with a single round on either side.
   */
  separation: "apart" | "overlap" | null;
};

/** Each group of one load level against the fastest (highest mean ops/s) of that level. */
export function versusFastest(groups: ComparisonGroup[]): Map<ComparisonGroup, VersusFastest> {
  const result = new Map<ComparisonGroup, VersusFastest>();
  const best = groups.reduce<ComparisonGroup | null>(
    (b, g) => (b === null || g.opsRps.mean > b.opsRps.mean ? g : b),
    null,
  );
  if (!best) return result;
  for (const g of groups) {
    const fastest = g === best;
    const a = g.opsRps.ci95;
    const b = best.opsRps.ci95;
    result.set(g, {
      ratio: best.opsRps.mean > 0 ? g.opsRps.mean / best.opsRps.mean : 1,
      fastest,
      separation: fastest || !a || !b ? null : a[1] < b[0] || b[1] < a[0] ? "apart" : "overlap",
    });
  }
  return result;
}

/**
 * What a level's "vs fastest" column can say: a ranking; "only" with a single server, nothing to
 * compare with; "open" at an open-model level, where every server was offered the same rate, so
 * one that kept up is not faster than another that kept up.
 */
export function versusKind(groups: ComparisonGroup[]): "ranked" | "only" | "open" {
  if (groups.length <= 1) return "only";
  return groups.some((g) => g.rate !== null) ? "open" : "ranked";
}

type HostLike = {
  hostId?: unknown;
  hostname?: unknown;
  name?: unknown;
  cpuModel?: unknown;
  cores?: unknown;
  memoryBytes?: unknown;
  kernel?: unknown;
};

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

/** A machine as a reader recognises it: name, CPU, cores, memory, kernel. */
function machineLabel(host: HostLike): string {
  // The worker's host id names the lab machine; the OS hostname beside it when they differ.
  const id = str(host.hostId);
  const hostname = str(host.hostname) ?? str(host.name);
  const name = id && hostname && id !== hostname ? `${id} on ${hostname}` : (id ?? hostname);
  const parts = [
    str(host.cpuModel),
    typeof host.cores === "number" ? `${host.cores} ${host.cores === 1 ? "core" : "cores"}` : null,
    typeof host.memoryBytes === "number" ? formatGib(host.memoryBytes) : null,
    str(host.kernel),
  ].filter(Boolean);
  return `${name ?? "unknown machine"}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/** One value of an aspect the compared cells do not share, and the cells that had it. */
export type EnvironmentVariant = { label: string; cells: number; servers: string[] };

/** An aspect of where or how cells ran that differs between the cells a comparison puts side by side. */
export type EnvironmentDifference = {
  aspect: "machine" | "k6" | "limits" | "window" | "runtime";
  variants: EnvironmentVariant[];
};

/**
 * What makes two k6 builds the same for a comparison: the release, and whether it ran in a
 * container. The lab records `k6 version`'s first line ("k6 v1.8.1 (go1.26.8, linux/amd64)"), an
 * upload what perflab's output extension says ("1.8.1"): the same k6 in two spellings is no
 * difference. Two builds of one release with another Go toolchain are one k6 here too (the
 * machine aspect names the architecture). A string without a version in it is its own key.
 */
export function k6VersionKey(version: string): string {
  const release = /\bv?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b/.exec(version)?.[1];
  if (!release) return version.trim();
  const container = /\[container [^\]]*\]/.exec(version)?.[0];
  return container ? `${release} ${container}` : release;
}

/**
 * What differs between the cells a comparison draws side by side (succeeded, with a summary): the
 * machine (several worker hosts share one queue, so a run's cells can land on different machines),
 * the k6 build, the limits the driver applied, and the runtime version one server ran under (Go
 * 1.26.8 in one run, 1.26.9 in the next: servers differ in runtime by design, one server should
 * not). Empty when they all ran alike, the normal case.
 */
export function environmentDifferences(cells: CellDto[]): EnvironmentDifference[] {
  const compared = cells.filter((c) => c.status === "succeeded" && c.summary !== null);
  const aspects: [EnvironmentDifference["aspect"], (c: CellDto) => { key: string; label: string } | null][] =
    [
      [
        "machine",
        (c) => {
          const host = (c.hostFingerprint ?? null) as HostLike | null;
          if (!host || typeof host !== "object") return null;
          // The label names the host id, hostname, CPU, cores, memory and kernel: two cells whose
          // labels agree ran on what a reader would call the same machine.
          const label = machineLabel(host);
          return { key: label, label };
        },
      ],
      ["k6", (c) => (c.k6Version ? { key: k6VersionKey(c.k6Version), label: c.k6Version } : null)],
      [
        "limits",
        (c) => {
          if (!c.limits)
            return c.driver === "docker" ? null : { key: "none", label: "no limits (a process)" };
          const { cpus, memoryMb, cpuset } = c.limits;
          const label = `${cpus} vCPU, ${memoryMb} MB${cpuset ? `, CPUs ${cpuset}` : ""}`;
          return { key: label, label };
        },
      ],
      [
        // What was measured: a p99 or a peak RSS over an hour is not one over 10 s, nor is a rate
        // kept with at most 20 VUs one kept with 500.
        "window",
        (c) => {
          const label = `${c.durationSeconds} s measured after ${c.warmupSeconds} s of warm-up${c.maxVus !== null ? `, at most ${vusLabel(c.maxVus)}` : ""}`;
          return { key: label, label };
        },
      ],
    ];
  const differences: EnvironmentDifference[] = [];
  for (const [aspect, read] of aspects) {
    const variants = new Map<string, { label: string; cells: number; servers: Set<string> }>();
    for (const cell of compared) {
      const value = read(cell);
      if (!value) continue;
      const variant = variants.get(value.key) ?? { label: value.label, cells: 0, servers: new Set<string>() };
      // Of the spellings that are one variant, the most detailed names it.
      if (value.label.length > variant.label.length) variant.label = value.label;
      variant.cells++;
      variant.servers.add(cell.serverName);
      variants.set(value.key, variant);
    }
    if (variants.size > 1) {
      differences.push({
        aspect,
        variants: [...variants.values()].map((v) => ({
          label: v.label,
          cells: v.cells,
          servers: [...v.servers],
        })),
      });
    }
  }
  const runtimes = runtimeDifferences(compared);
  if (runtimes) differences.push(runtimes);
  return differences;
}

/** The runtime versions of each server that ran under more than one, or null when none did. */
function runtimeDifferences(compared: CellDto[]): EnvironmentDifference | null {
  const byServer = new Map<string, Map<string, number>>();
  for (const cell of compared) {
    if (!cell.runtimeVersion) continue;
    const versions = byServer.get(cell.serverName) ?? new Map<string, number>();
    versions.set(cell.runtimeVersion, (versions.get(cell.runtimeVersion) ?? 0) + 1);
    byServer.set(cell.serverName, versions);
  }
  const variants = [...byServer]
    .filter(([, versions]) => versions.size > 1)
    .flatMap(([server, versions]) =>
      [...versions].map(([version, cells]) => ({
        label: `${server} on ${version}`,
        cells,
        servers: [server],
      })),
    );
  return variants.length > 0 ? { aspect: "runtime", variants } : null;
}

/** A run as a cross-run comparison needs it: its cells, and what names it (commit, name, id, date). */
export type RunToCompare = {
  run: Pick<RunDto, "id" | "name" | "spec" | "createdAt">;
  commit: string | null;
  cells: CellDto[];
};

const TAG_MAX = 24;

/** Words that only join server names ("go vs node", "go and node"): dropped with the names they join. */
const JOINERS = new Set(["vs", "vs.", "versus", "and", "&"]);

/** A word as compared with names: lower case, without the punctuation around it ("node," → "node"). */
const bare = (word: string) => word.toLowerCase().replace(/^[([{"'“‘]+|[)\]}"'”’,;:.!?]+$/g, "");

/**
 * What a run's name adds to a label that already says the server and a chart that already says the
 * workload: the name less the words that name the run's servers and scenarios, and the "vs" or
 * "and" between them ("go vs node baseline check" → "baseline check"; an auto-named run, "go vs node
 * · mcp-tool-call", adds nothing); null when nothing is left.
 */
export function nameTag({ run, cells }: RunToCompare): string | null {
  const said = new Set(
    [
      ...(run.spec.servers ?? []),
      ...(run.spec.scenarios ?? []).map((s) => s?.id),
      ...cells.flatMap((c) => [c.serverName, c.scenario]),
    ]
      // A spec uploaded from elsewhere need not have every field.
      .filter((word): word is string => typeof word === "string")
      .map((word) => word.toLowerCase()),
  );
  const parts = run.name.split("·").map((part) => {
    const words = part.split(/\s+/).filter(Boolean);
    const named = words.map((word) => said.has(bare(word)));
    const joiner = (i: number) => JOINERS.has(bare(words[i]!));
    // A joiner goes when the words it joins include a dropped name, or when it is left at an end.
    const kept = words.filter((_, i) => {
      if (named[i]) return false;
      if (!joiner(i)) return true;
      return !(named[i - 1] || named[i + 1]);
    });
    while (kept.length > 0 && JOINERS.has(bare(kept[0]!))) kept.shift();
    while (kept.length > 0 && JOINERS.has(bare(kept.at(-1)!))) kept.pop();
    // "go, node:" less its names leaves nothing but punctuation.
    return kept.join(" ").replace(/^[\s,;:–—-]+|[\s,;:–—-]+$/g, "");
  });
  const name = parts.filter((part) => part !== "").join(" · ");
  return name === "" ? null : name;
}

const head = (name: string) => `${name.slice(0, TAG_MAX - 1).trimEnd()}…`;
const tail = (name: string) => `…${name.slice(-(TAG_MAX - 1)).trimStart()}`;

/**
 * A name cut to TAG_MAX characters: its start, or its end where another of `names` starts alike
 * ("Throughput by response size" and "… (quick)" differ only at the end).
 */
function shortName(name: string, names: readonly string[]): string {
  if (name.length <= TAG_MAX) return name;
  const others = names.filter((n) => n !== name);
  if (!others.some((n) => n.length > TAG_MAX && head(n) === head(name)) && !others.includes(head(name)))
    return head(name);
  return others.some((n) => n.length > TAG_MAX && tail(n) === tail(name)) ? head(name) : tail(name);
}

/** The drivers a run's cells ran on: "docker", "local". */
const driverFacet = ({ run, cells }: RunToCompare): string => {
  const drivers = [...new Set(cells.map((c) => c.driver).filter(Boolean))].sort();
  return drivers.length > 0 ? drivers.join("+") : (run.spec.driver ?? "");
};

/** Numbers with their unit: "1 VU", "1, 2 VUs", "10–200 VUs" (a span beyond three). */
function countsOf(values: number[], one: string, many: string): string | null {
  if (values.length === 0) return null;
  const span = values.length > 3 ? `${values[0]}–${values.at(-1)}` : values.join(", ");
  return `${span} ${values.length === 1 && values[0] === 1 ? one : many}`;
}

/** A run's load levels in few words: "1 VU", "1, 2 VUs", "50 VUs + 100 calls/s". */
const loadFacet = ({ cells }: RunToCompare): string => {
  const levels = [...new Map(cells.map((c) => [levelKey(c), levelOf(c)])).values()].sort(levelOrder);
  const scenario = sharedScenario(cells);
  const vus = levels.flatMap((l) => (l.vus !== null ? [l.vus] : []));
  const rates = levels.flatMap((l) => (l.rate !== null ? [l.rate] : []));
  return [
    countsOf(vus, "VU", "VUs"),
    countsOf(rates, `${operationWord(scenario, 1)}/s`, `${operationWord(scenario)}/s`),
  ]
    .filter(Boolean)
    .join(" + ");
};

const utc = (options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" });
const day = utc({ dateStyle: "medium" });
const minute = utc({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
const second = utc({ hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });

/**
 * Creation times that tell these runs apart, as coarse as will do: "3 May 2025", else the time of
 * day ("14:05 UTC", with the day when they differ), else to the second; null when none does. Runs
 * whose names say nothing of their own (`untagged`) get the time of day at least, with the day
 * unless they share it: a bare date says little of which run a bar is.
 */
function createdFacets(runs: RunToCompare[], untagged = false): string[] | null {
  const dates = runs.map(({ run }) => new Date(run.createdAt));
  const days = dates.map((d) => day.format(d));
  const sameDay = runs.length > 1 && new Set(days).size === 1;
  for (const time of untagged ? [minute, second] : [null, minute, second]) {
    const values = dates.map((d, i) => {
      if (!time) return days[i]!;
      return `${sameDay ? "" : `${days[i]}, `}${time.format(d)} UTC`;
    });
    if (new Set(values).size === values.length) return values;
  }
  return null;
}

const distinct = (values: string[]) => new Set(values).size === values.length;

/**
 * A short tag per run for labels like "go · 3f2a9c1": its commit (7 characters) when it has one,
 * else what its name says beyond the servers and scenarios (nameTag). Runs left with the same tag,
 * or with none, get what tells them apart, in this order: the driver and the load levels when those
 * differ, the day or time of creation (a run with no tag of its own: the time of day at least), else
 * the end of the run's id ("nightly (docker)", "3 May 2025, 14:05 UTC").
 */
export function runTags(runs: RunToCompare[]): Map<string, string> {
  const bases = runs.map((r) => (r.commit ? r.commit.slice(0, 7) : nameTag(r)));
  const names = [...new Set(bases.filter((b): b is string => b !== null))];
  const shown = (base: string) => shortName(base, names);
  const tags = bases.map((base) => (base === null ? "" : shown(base)));
  for (const base of new Set(bases)) {
    const members = runs.flatMap((_, i) => (bases[i] === base ? [i] : []));
    if (members.length === 1 && base !== null) continue;
    const group = members.map((i) => runs[i]!);
    const extras: string[][] = members.map(() => []);
    const apart = () => distinct(extras.map((more) => [base ?? "", ...more].join("\u0000")));
    for (const facet of [driverFacet, loadFacet]) {
      const values = group.map(facet);
      if (apart() || new Set(values).size === 1) continue;
      for (const [k, value] of values.entries()) if (value) extras[k]!.push(value);
    }
    if (!apart() || (base === null && extras.every((more) => more.length === 0))) {
      // The id's end is unique whatever the rest; the time of creation only when it alone will do.
      const created = createdFacets(group, base === null);
      for (const [k, { run }] of group.entries()) extras[k]!.push(created?.[k] ?? `…${run.id.slice(-6)}`);
    }
    for (const [k, i] of members.entries()) {
      const more = extras[k]!.join(", ");
      tags[i] = base === null ? more : `${shown(base)} (${more})`;
    }
  }
  // A name that happens to read like another run's date: the id's end settles it.
  return new Map(
    runs.map(({ run }, i) => {
      const tag = tags[i]!;
      const shared = tags.filter((t) => t === tag).length > 1;
      return [run.id, shared ? `${tag} (${run.id.slice(-6)})` : tag];
    }),
  );
}

/**
 * The cells of several runs as one comparison: each server becomes "server · tag" (so a server
 * measured in two runs gets a bar per run), cell indexes continue from run to run (keys and test
 * ids stay unique) while labels print each run's own ("#3 go · 3f2a9c1"), and the servers
 * keep each run's order, run after run (hence the bars'); a server keeps its colour (lib/colours),
 * fainter in each later run.
 */
export function mergeRuns(runs: RunToCompare[]): {
  cells: MergedCell[];
  serverOrder: string[];
  tags: Map<string, string>;
} {
  const tags = runTags(runs);
  const cells: MergedCell[] = [];
  const serverOrder: string[] = [];
  for (const { run, cells: own } of runs) {
    const tag = tags.get(run.id)!;
    // Past every index so far, whatever gaps a run's own indexes have.
    const offset = cells.length === 0 ? 0 : Math.max(...cells.map((c) => c.index)) + 1;
    const label = (server: string) => `${server} · ${tag}`;
    for (const server of runServers(own, run.spec.servers ?? [])) serverOrder.push(label(server));
    for (const cell of [...own].sort((a, b) => a.index - b.index)) {
      cells.push({
        ...cell,
        index: offset + cell.index,
        shownIndex: cell.index,
        serverName: label(cell.serverName),
      });
    }
  }
  return { cells, serverOrder, tags };
}
