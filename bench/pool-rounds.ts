/**
 * Pools the rounds of several `perflab-vs-bare` runs (their printed output, saved to files) into one
 * set of paired ratios, as if they were one run: each round stays paired within itself, so a drift of
 * the machine between runs falls on every arm alike.
 *
 *   pnpm exec tsx bench/pool-rounds.ts run1.log run2.log [...]
 */
import { readFileSync } from "node:fs";
import { mean, pairedRatio, sd } from "./lib.ts";

type Arm = "bare" | "output" | "perflab";
const rounds: Map<Arm, { rps: number; p99: number }>[] = [];
for (const file of process.argv.slice(2)) {
  const byRound = new Map<number, Map<Arm, { rps: number; p99: number }>>();
  for (const m of readFileSync(file, "utf8").matchAll(
    /^round (\d+), (bare|output|perflab): (\d+) rps, p99 ([\d.]+) ms/gm,
  )) {
    const round = byRound.get(Number(m[1])) ?? new Map();
    round.set(m[2] as Arm, { rps: Number(m[3]), p99: Number(m[4]) });
    byRound.set(Number(m[1]), round);
  }
  rounds.push(...[...byRound.values()].filter((r) => r.size === 3));
}
const of = (arm: Arm, key: "rps" | "p99") => rounds.map((r) => r.get(arm)![key]);
const show = (label: string, r: ReturnType<typeof pairedRatio>) =>
  console.log(
    `${label}: ${r.ratio.toFixed(3)} (95 % CI ${r.low.toFixed(3)}–${r.high.toFixed(3)}, ${r.n} rounds)`,
  );
const bareRps = of("bare", "rps");
const perflabRps = of("perflab", "rps");
const headline = pairedRatio(bareRps, perflabRps);
show("RPS perflab / bare", headline);
show("RPS output / bare", pairedRatio(bareRps, of("output", "rps")));
show("RPS perflab / output", pairedRatio(of("output", "rps"), perflabRps));
show("tools/call p99 perflab / bare", pairedRatio(of("bare", "p99"), of("perflab", "p99")));
for (const arm of ["bare", "output", "perflab"] as const) {
  const rps = of(arm, "rps");
  console.log(`${arm}: ${mean(rps).toFixed(0)} ± ${sd(rps).toFixed(0)} req/s`);
}
// How many rounds would put the interval's lower end at 0.95, were the estimate and spread to hold.
const spread = sd(bareRps.map((bare, i) => Math.log(perflabRps[i]! / bare)));
const margin = Math.log(headline.ratio / 0.95);
console.log(
  `log-ratio sd ${spread.toFixed(3)}: the lower end reaches 0.95 after about ${Math.ceil(((1.96 * spread) / margin) ** 2)} rounds`,
);
