import { levelKey, levelOf, levelOrder, runServers } from "./compare-axes";
import type { CellDto, RunDto } from "./dto";
import { rateWord, sharedScenario } from "./labels";

/** A cell of a comparison of runs: `index` unique among all runs, `shownIndex` its run's own. */
export type MergedCell = CellDto & { shownIndex: number };

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
    countsOf(rates, `${rateWord(scenario, 1)}/s`, `${rateWord(scenario)}/s`),
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
