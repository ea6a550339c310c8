import type { PointDto } from "./dto";

/** A measured second for tests: 100 req/s, p99 3 ms, half a core, 1,000 bytes RSS unless overridden. */
export const pointAt = (second: number, over: Partial<PointDto> = {}): PointDto => ({
  type: "point",
  cellId: "c1",
  t: 1_700_000_000_000 + second * 1000,
  second,
  phase: "measure",
  rps: 100,
  errors: 0,
  p50: 1,
  p95: 2,
  p99: 3,
  cpuPct: 50,
  rssBytes: 1_000,
  k6CpuPct: 20,
  ...over,
});
