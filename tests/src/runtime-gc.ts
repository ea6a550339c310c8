import { expect } from "vitest";

/**
 * CONTRACT.md section 7's `gc_pauses_recent`, as the conformance suite checks it: the list's
 * shape for every runtime, and the pauses a server lists while a tool makes garbage.
 */
export type Pause = [n: number, ms: number];
type RuntimeBody = Record<string, unknown>;

/** What each runtime lists: numbered pauses, nothing ever (Rust has no collector), or null (Bun). */
export const pausesRule: Record<string, "pauses" | "empty" | "null"> = {
  go: "pauses",
  java: "pauses",
  node: "pauses",
  python: "pauses",
  bun: "null",
  rust: "empty",
};

/** At most 64 `[n, ms]` pairs, n consecutive and positive, ms a non-negative number. */
export function expectPausesShape(runtime: string, value: unknown) {
  const rule = pausesRule[runtime] ?? "pauses";
  const what = `gc_pauses_recent of ${runtime} = ${JSON.stringify(value)?.slice(0, 200)}`;
  if (rule === "null") return expect(value, what).toBeNull();
  if (rule === "empty") return expect(value, what).toEqual([]);
  if (value === null) return; // a runtime outside the table may lack the figure
  expect(Array.isArray(value), what).toBe(true);
  const pauses = value as unknown[];
  expect(pauses.length, what).toBeLessThanOrEqual(64);
  pauses.forEach((pause, i) => {
    expect(Array.isArray(pause) && pause.length === 2, what).toBe(true);
    const [n, ms] = pause as Pause;
    expect(Number.isInteger(n) && n >= 1 && typeof ms === "number" && ms >= 0, what).toBe(true);
    if (i > 0) expect(n, `${what}: numbers follow each other`).toBe((pauses[i - 1] as Pause)[0] + 1);
  });
}

const listed = (body: RuntimeBody) => (body.gc_pauses_recent as Pause[] | null) ?? [];

/**
 * Calls `allocate` (a tool call that makes garbage) until the server has collected and listed
 * the pauses (JVM notifications arrive a little after the collection), at most `maxCalls` times.
 * Reads /debug/runtime after each call and takes the pauses numbered after the last seen, as the
 * worker's sampler does, so a call that collects many times stays within the list's 64.
 */
export async function collectUnderLoad(input: {
  read: () => Promise<RuntimeBody>;
  allocate: () => Promise<void>;
  maxCalls: number;
}) {
  const before = await input.read();
  let lastSeen = listed(before).at(-1)?.[0] ?? 0;
  const fresh: Pause[] = [];
  let after = before;
  for (let call = 0; call < input.maxCalls; call++) {
    await input.allocate();
    after = await input.read();
    fresh.push(...listed(after).filter(([n]) => n > lastSeen));
    lastSeen = fresh.at(-1)?.[0] ?? lastSeen;
    const collections = (after.gc_count as number) - (before.gc_count as number);
    if (collections >= 1 && fresh.length >= collections) break;
  }
  return {
    fresh,
    longest: Math.max(0, ...fresh.map(([, ms]) => ms)),
    collections: (after.gc_count as number) - (before.gc_count as number),
    totalMs: (after.gc_pause_total_ms as number) - (before.gc_pause_total_ms as number),
  };
}

/**
 * Under load the longest pause is positive and within the total grown meanwhile; Go, Java and
 * Python list one pause per collection, Node one per gc entry (a collection or a marking step).
 */
export function expectPausesUnderLoad(runtime: string, seen: Awaited<ReturnType<typeof collectUnderLoad>>) {
  const what = `${runtime}: ${JSON.stringify(seen).slice(0, 300)}`;
  expect(seen.collections, `${what}: the tool made the server collect`).toBeGreaterThan(0);
  if (runtime === "node") expect(seen.fresh.length, what).toBeGreaterThanOrEqual(seen.collections);
  else expect(seen.fresh.length, what).toBe(seen.collections);
  expect(seen.longest, what).toBeGreaterThan(0);
  // The JVM's total and each collection's duration are whole milliseconds, rounded apart.
  const slack = runtime === "java" ? seen.collections : 1e-6;
  expect(seen.longest, what).toBeLessThanOrEqual(seen.totalMs + slack);
}
