import { describe, expect, it } from "vitest";
import { cell, openCell, resetCells, summary } from "./cell-fixtures";
import {
  compareCells,
  environmentDifferences,
  groupsAtLevel,
  isComparable,
  k6VersionKey,
  levelKey,
  mergeRuns,
  nameTag,
  type RunToCompare,
  runTags,
  stat,
  versusFastest,
  versusKind,
} from "./compare";
import type { CellDto } from "./dto";
import { cellLabel, cellNumber } from "./labels";

describe("stat", () => {
  it("gives mean, sample sd, min and max, ignoring missing values", () => {
    expect(stat([2, 4, null, 6, Number.NaN])).toMatchObject({
      mean: 4,
      sd: 2,
      cv: 0.5,
      min: 2,
      max: 6,
      n: 3,
    });
    // t(0.975, 2) = 4.303: the mean's interval is 4 ± 4.303 · 2 / √3.
    const half = 4.3027 * (2 / Math.sqrt(3));
    expect(stat([2, 4, 6])!.ci95![0]).toBeCloseTo(4 - half, 3);
    expect(stat([2, 4, 6])!.ci95![1]).toBeCloseTo(4 + half, 3);
    expect(stat([5])).toEqual({ mean: 5, sd: 0, cv: null, ci95: null, min: 5, max: 5, n: 1 });
    expect(stat([null, undefined])).toBeNull();
  });
});

describe("compareCells", () => {
  it("groups by server × load level, aggregates rounds, orders levels and servers", () => {
    resetCells();
    const cells = [
      cell("go", 50, 1, summary(1000, 4, 10)),
      cell("node", 50, 1, summary(500, 8, 40)),
      cell("go", 10, 1, summary(300, 2, 8)),
      cell("node", 10, 1, summary(200, 3, 30)),
      cell("go", 50, 2, summary(1200, 6, 14)),
      cell("node", 50, 2, null), // failed
      cell("go", 10, 2, null, "queued"),
      cell("node", 10, 2, summary(220, null, null)),
    ];
    const c = compareCells(cells, ["node", "go"]);
    expect(c.servers).toEqual(["node", "go"]);
    expect(c.pending).toBe(1);
    expect(c.missing).toEqual([
      {
        index: 5,
        serverName: "node",
        scenario: "mcp-tool-call",
        vus: 50,
        rate: null,
        round: 2,
        status: "failed",
        error: "boom",
      },
    ]);
    expect(c.workloads).toHaveLength(1);
    const [w] = c.workloads;
    expect(w!.tool).toBe("echo");
    expect(w!.levels).toEqual([
      { vus: 10, rate: null },
      { vus: 50, rate: null },
    ]);
    expect(w!.groups.map((g) => `${g.vus}/${g.serverName}/${g.rounds}`)).toEqual([
      "10/node/2",
      "10/go/1",
      "50/node/1",
      "50/go/2",
    ]);
    const go50 = w!.groups.find((g) => g.serverName === "go" && g.vus === 50)!;
    expect(go50.opsRps).toMatchObject({ mean: 1100, min: 1000, max: 1200, n: 2 });
    expect(go50.opsRps.sd).toBeCloseTo(141.42, 2);
    expect(go50.p99Ms).toMatchObject({ mean: 5, min: 4, max: 6 });
    expect(go50.rssPeakBytes).toMatchObject({ mean: 12, n: 2 });
    // A round without p99 or RSS still counts for throughput, not for the others.
    expect(go50.opsPerCpuSecond).toBeNull(); // no CPU reading
    expect(go50.k6SaturatedRounds).toBe(0);
    const node10 = w!.groups.find((g) => g.serverName === "node" && g.vus === 10)!;
    expect(node10.opsRps.mean).toBe(210);
    expect(node10.p99Ms).toMatchObject({ mean: 3, n: 1 });
    expect(node10.rssPeakBytes).toMatchObject({ mean: 30, n: 1 });
  });

  it("gives calls per CPU-second from each round's ops/s and server CPU, and counts k6-saturated rounds", () => {
    resetCells();
    const saturated = {
      ...cell("rust", 50, 1, { ...summary(4000, 1, 1), cpuAvgPct: 50 }),
      k6Saturated: true,
    };
    const c = compareCells([
      saturated,
      cell("rust", 50, 2, { ...summary(5000, 1, 1), cpuAvgPct: 62.5 }),
      cell("go", 50, 1, { ...summary(2000, 1, 1), cpuAvgPct: 100 }),
      cell("go", 50, 2, { ...summary(1000, 1, 1), cpuAvgPct: 0 }), // an idle reading gives none
    ]);
    const [rust, go] = ["rust", "go"].map((s) => c.workloads[0]!.groups.find((g) => g.serverName === s)!);
    expect(rust!.opsPerCpuSecond).toMatchObject({ mean: 8000, min: 8000, max: 8000, n: 2 });
    expect(rust!.k6SaturatedRounds).toBe(1);
    expect(go!.opsPerCpuSecond).toMatchObject({ mean: 2000, n: 1 });
    expect(go!.opsRps.n).toBe(2);
    expect(go!.k6SaturatedRounds).toBe(0);
  });

  it("gives each group the share of its calls that failed, per call rather than per HTTP request", () => {
    resetCells();
    const c = compareCells([
      // A session per call: 4,000 requests for 1,000 calls, 35 of which failed.
      cell("go", 10, 1, { ...summary(100, 1, 1), requests: 4000, ops: 1000, errors: 35 }),
      cell("go", 10, 2, { ...summary(100, 1, 1), requests: 4000, ops: 1000, errors: 0 }),
      cell("rust", 10, 1, { ...summary(100, 1, 1), requests: 1000, ops: 1000, errors: 0 }),
    ]);
    const [go, rust] = ["go", "rust"].map((s) => c.workloads[0]!.groups.find((g) => g.serverName === s)!);
    expect(go!.failedCallsPct).toMatchObject({ mean: 1.75, min: 0, max: 3.5, n: 2 });
    expect(rust!.failedCallsPct).toMatchObject({ mean: 0, n: 1 });
  });

  it("waits for the summary of a cell the stream already reports succeeded", () => {
    resetCells();
    const c = compareCells([cell("go", 1, 1, summary(1, 1, 1)), cell("node", 1, 1, null, "succeeded")]);
    expect(c.pending).toBe(1);
    expect(c.missing).toEqual([]);
    expect(c.workloads[0]!.servers).toEqual(["go"]);
  });

  it("keeps different tools apart and lists cancelled cells as missing", () => {
    resetCells();
    const fib = { tool: "fibonacci", arguments: { n: 20 } };
    const c = compareCells([
      cell("go", 1, 1, summary(10, 1, 1)),
      cell("go", 1, 1, summary(5, 2, 1), "succeeded", fib),
      cell("node", 1, 1, null, "cancelled"),
    ]);
    expect(c.workloads.map((w) => w.tool)).toEqual(["echo", "fibonacci"]);
    expect(c.servers).toEqual(["go", "node"]);
    expect(c.missing.map((m) => m.status)).toEqual(["cancelled"]);
  });

  it("tells an open-model level from a closed one of the same number", () => {
    resetCells();
    const c = compareCells([
      cell("go", 50, 1, summary(900, 4, 10)),
      openCell("go", 50, 1, summary(50, 2, 8)),
      openCell("node", 50, 1, summary(49, 3, 30)),
      cell("node", 50, 1, summary(700, 5, 40)),
    ]);
    expect(c.workloads).toHaveLength(1);
    const [w] = c.workloads;
    expect(w!.levels).toEqual([
      { vus: 50, rate: null },
      { vus: null, rate: 50 },
    ]);
    expect(w!.groups.map((g) => [g.vus, g.rate, g.serverName, g.opsRps.mean])).toEqual([
      [50, null, "go", 900],
      [50, null, "node", 700],
      [null, 50, "go", 50],
      [null, 50, "node", 49],
    ]);
    expect(groupsAtLevel(w!.groups, { vus: null, rate: 50 }).map((g) => g.opsRps.mean)).toEqual([50, 49]);
  });

  it("orders closed-model levels by VUs, then open-model levels by rate, then a level of neither", () => {
    resetCells();
    const c = compareCells([
      openCell("go", 500, 1, summary(500, 1, 1)),
      cell("go", null, 1, summary(1, 1, 1)),
      cell("go", 100, 1, summary(1, 1, 1)),
      openCell("go", 20, 1, summary(20, 1, 1)),
      cell("go", 5, 1, summary(1, 1, 1)),
      openCell("go", 100, 1, summary(100, 1, 1)),
    ]);
    expect(c.workloads[0]!.levels.map(levelKey)).toEqual([
      "vus:5",
      "vus:100",
      "rate:20",
      "rate:100",
      "rate:500",
      "none",
    ]);
    expect(c.workloads[0]!.groups.map(levelKey)).toEqual(c.workloads[0]!.levels.map(levelKey));
  });

  it("lists a missing open-model cell with its rate, and reads an absent rate (an old report's cell) as none", () => {
    resetCells();
    const failed = [openCell("go", 200, 1, null), openCell("go", 200, 2, null, "cancelled")];
    // A cell as frozen in a report before the open model existed: no rate, no maxVus.
    const { rate: _rate, maxVus: _maxVus, ...old } = cell("node", 10, 1, null);
    const c = compareCells([...failed, old as CellDto]);
    expect(c.missing).toEqual([
      {
        index: 0,
        serverName: "go",
        scenario: "mcp-tool-call",
        vus: null,
        rate: 200,
        round: 1,
        status: "failed",
        error: "boom",
      },
      {
        index: 1,
        serverName: "go",
        scenario: "mcp-tool-call",
        vus: null,
        rate: 200,
        round: 2,
        status: "cancelled",
        error: null,
      },
      {
        index: 2,
        serverName: "node",
        scenario: "mcp-tool-call",
        vus: 10,
        rate: null,
        round: 1,
        status: "failed",
        error: "boom",
      },
    ]);
  });

  it("is shown only when a run spans several servers or load levels", () => {
    expect(isComparable([{ serverName: "go", vus: 1 }])).toBe(false);
    expect(
      isComparable([
        { serverName: "go", vus: 1 },
        { serverName: "go", vus: 1 },
      ]),
    ).toBe(false);
    expect(
      isComparable([
        { serverName: "go", vus: 1 },
        { serverName: "node", vus: 1 },
      ]),
    ).toBe(true);
    expect(
      isComparable([
        { serverName: "go", vus: 1 },
        { serverName: "go", vus: 2 },
      ]),
    ).toBe(true);
    // Open-model levels: a different rate is a different level, and 1 VU is not 1 call/s.
    expect(
      isComparable([
        { serverName: "go", vus: null, rate: 100 },
        { serverName: "go", vus: null, rate: 100 },
      ]),
    ).toBe(false);
    expect(
      isComparable([
        { serverName: "go", vus: null, rate: 100 },
        { serverName: "go", vus: null, rate: 200 },
      ]),
    ).toBe(true);
    expect(
      isComparable([
        { serverName: "go", vus: 1 },
        { serverName: "go", vus: null, rate: 1 },
      ]),
    ).toBe(true);
  });
});

describe("versusFastest", () => {
  it("rates each server against the fastest of its level and says whether the rounds tell them apart", () => {
    resetCells();
    const c = compareCells([
      cell("rust", 10, 1, summary(1000, 1, 1)),
      cell("rust", 10, 2, summary(1010, 1, 1)),
      cell("rust", 10, 3, summary(990, 1, 1)),
      cell("go", 10, 1, summary(500, 1, 1)),
      cell("go", 10, 2, summary(510, 1, 1)),
      cell("go", 10, 3, summary(490, 1, 1)),
      // Within the fastest's noise: this run cannot rank it below rust.
      cell("node", 10, 1, summary(1100, 1, 1)),
      cell("node", 10, 2, summary(800, 1, 1)),
      cell("node", 10, 3, summary(980, 1, 1)),
      cell("bun", 10, 1, summary(700, 1, 1)),
    ]);
    const groups = c.workloads[0]!.groups;
    const vs = versusFastest(groups);
    const by = (s: string) => vs.get(groups.find((g) => g.serverName === s)!)!;
    expect(by("rust")).toEqual({ ratio: 1, fastest: true, separation: null });
    expect(by("go")).toMatchObject({ fastest: false, separation: "apart" });
    expect(by("go").ratio).toBeCloseTo(0.5, 9);
    expect(by("node")).toMatchObject({ fastest: false, separation: "overlap" });
    expect(by("node").ratio).toBeCloseTo(960 / 1000, 9);
    // One round has no interval: the ratio stands alone.
    expect(by("bun")).toMatchObject({ ratio: 0.7, separation: null });
    expect(versusFastest([]).size).toBe(0);
  });

  it("ranks only closed-model levels with more than one server", () => {
    resetCells();
    const closed = compareCells([
      cell("rust", 10, 1, summary(1000, 1, 1)),
      cell("go", 10, 1, summary(500, 1, 1)),
      cell("rust", 20, 1, summary(1200, 1, 1)),
    ]).workloads[0]!;
    expect(versusKind(groupsAtLevel(closed.groups, { vus: 10, rate: null }))).toBe("ranked");
    expect(versusKind(groupsAtLevel(closed.groups, { vus: 20, rate: null }))).toBe("only");
    resetCells();
    const open = compareCells([
      openCell("rust", 100, 1, summary(100, 1, 1)),
      openCell("go", 100, 1, summary(99, 1, 1)),
    ]).workloads[0]!;
    expect(versusKind(groupsAtLevel(open.groups, { vus: null, rate: 100 }))).toBe("open");
  });
});

describe("environmentDifferences", () => {
  const host = (hostname: string, cores = 2) => ({
    hostId: hostname,
    hostname,
    cpuModel: "Intel Xeon",
    cores,
    memoryBytes: 24 * 2 ** 30,
    kernel: "Linux 6.18",
    arch: "x64",
  });
  const on = (c: ReturnType<typeof cell>, fields: Partial<ReturnType<typeof cell>>) => ({ ...c, ...fields });

  it("is empty when every compared cell ran on the same machine with the same k6 and limits", () => {
    resetCells();
    const k6Version = "k6 v1.8.1";
    expect(
      environmentDifferences([
        on(cell("go", 10, 1, summary(1, 1, 1)), { hostFingerprint: host("a"), k6Version }),
        on(cell("node", 10, 1, summary(1, 1, 1)), { hostFingerprint: host("a"), k6Version }),
      ]),
    ).toEqual([]);
  });

  it("names measured windows that differ: duration, warm-up, or the VUs an open-model rate may use", () => {
    resetCells();
    const diffs = environmentDifferences([
      on(cell("go", 10, 1, summary(1, 1, 1)), { durationSeconds: 3600, warmupSeconds: 60 }),
      on(cell("go", 10, 2, summary(1, 1, 1)), { durationSeconds: 10, warmupSeconds: 0 }),
      on(cell("go", 10, 3, summary(1, 1, 1)), { durationSeconds: 10, warmupSeconds: 0, maxVus: 20 }),
    ]);
    expect(diffs.map((d) => d.aspect)).toEqual(["window"]);
    expect(diffs[0]!.variants.map((v) => v.label)).toEqual([
      "3600 s measured after 60 s of warm-up",
      "10 s measured after 0 s of warm-up",
      "10 s measured after 0 s of warm-up, at most 20 VUs",
    ]);
  });

  it("names the machines, k6 builds and limits that differ, with how many cells and which servers each had", () => {
    resetCells();
    const limits = (cpus: number) => ({ cpus, memoryMb: 2048, cpuset: null });
    const diffs = environmentDifferences([
      on(cell("go", 10, 1, summary(1, 1, 1)), {
        hostFingerprint: host("lab-1"),
        k6Version: "k6 v1.8.1",
        driver: "docker",
        limits: limits(2),
      }),
      on(cell("node", 10, 1, summary(1, 1, 1)), {
        hostFingerprint: host("lab-1"),
        k6Version: "k6 v1.8.1",
        driver: "docker",
        limits: limits(2),
      }),
      on(cell("rust", 10, 1, summary(1, 1, 1)), {
        hostFingerprint: host("lab-2", 1),
        k6Version: "k6 v1.8.1",
        driver: "docker",
        limits: limits(1),
      }),
      // A failed cell is not in the comparison: its machine does not count.
      on(cell("java", 10, 1, null), { hostFingerprint: host("lab-3"), k6Version: "k6 v0.1" }),
    ]);
    expect(diffs.map((d) => d.aspect)).toEqual(["machine", "limits"]);
    expect(diffs[0]!.variants).toEqual([
      {
        label: "lab-1 (Intel Xeon, 2 cores, 24.0 GiB, Linux 6.18)",
        cells: 2,
        servers: ["go", "node"],
      },
      { label: "lab-2 (Intel Xeon, 1 core, 24.0 GiB, Linux 6.18)", cells: 1, servers: ["rust"] },
    ]);
    expect(diffs[1]!.variants.map((v) => v.label)).toEqual(["2 vCPU, 2048 MB", "1 vCPU, 2048 MB"]);
  });

  it("names a server that ran under two runtime versions, and not servers whose runtimes differ by design", () => {
    resetCells();
    const diffs = environmentDifferences([
      on(cell("go", 10, 1, summary(1, 1, 1)), { runtimeVersion: "go1.26.8" }),
      on(cell("go", 10, 2, summary(1, 1, 1)), { runtimeVersion: "go1.26.8" }),
      on(cell("go", 10, 3, summary(1, 1, 1)), { runtimeVersion: "go1.26.9" }),
      on(cell("node", 10, 1, summary(1, 1, 1)), { runtimeVersion: "v20.20.2" }),
      // Unknown (an upload) is no version of its own.
      on(cell("node", 10, 2, summary(1, 1, 1)), { runtimeVersion: null }),
    ]);
    expect(diffs).toEqual([
      {
        aspect: "runtime",
        variants: [
          { label: "go on go1.26.8", cells: 2, servers: ["go"] },
          { label: "go on go1.26.9", cells: 1, servers: ["go"] },
        ],
      },
    ]);
    resetCells();
    expect(
      environmentDifferences([
        on(cell("go", 10, 1, summary(1, 1, 1)), { runtimeVersion: "go1.26.8" }),
        on(cell("rust", 10, 1, summary(1, 1, 1)), { runtimeVersion: "rustc 1.95.0" }),
      ]),
    ).toEqual([]);
  });

  it("takes the same k6 release in the lab's and an upload's spelling as one k6", () => {
    resetCells();
    const lab = "k6 v1.8.1 (go1.26.8, linux/amd64)";
    expect(
      environmentDifferences([
        on(cell("go", 10, 1, summary(1, 1, 1)), { k6Version: lab }),
        on(cell("go", 10, 2, summary(1, 1, 1)), { k6Version: "1.8.1" }),
      ]),
    ).toEqual([]);
    const diffs = environmentDifferences([
      on(cell("go", 10, 1, summary(1, 1, 1)), { k6Version: "1.8.1" }),
      on(cell("go", 10, 2, summary(1, 1, 1)), { k6Version: lab }),
      on(cell("go", 10, 3, summary(1, 1, 1)), { k6Version: "1.7.0" }),
    ]);
    // The most detailed spelling names the variant.
    expect(diffs.map((d) => [d.aspect, d.variants.map((v) => [v.label, v.cells])])).toEqual([
      [
        "k6",
        [
          [lab, 2],
          ["1.7.0", 1],
        ],
      ],
    ]);
    expect(k6VersionKey("k6 v1.8.1-rc.1 (go1.26.8) [container perflab/k6:abc]")).toBe(
      "1.8.1-rc.1 [container perflab/k6:abc]",
    );
    expect(k6VersionKey("  unknown ")).toBe("unknown");
  });

  it("tells a k6 in a container from the local one", () => {
    resetCells();
    const diffs = environmentDifferences([
      on(cell("go", 10, 1, summary(1, 1, 1)), { k6Version: "k6 v1.8.1 (go1.26.8, linux/amd64)" }),
      on(cell("go", 10, 2, summary(1, 1, 1)), {
        k6Version: "k6 v1.8.1 (go1.26.8, linux/amd64) [container perflab/k6:abc]",
      }),
    ]);
    expect(diffs.map((d) => [d.aspect, d.variants.map((v) => v.cells)])).toEqual([["k6", [1, 1]]]);
  });
});

describe("comparing runs", () => {
  const run = (
    id: string,
    name: string,
    commit: string | null,
    cells: CellDto[],
    servers?: string[],
    createdAt = "2025-05-03T14:05:07.000Z",
  ): RunToCompare => ({
    run: {
      id,
      name,
      createdAt,
      spec: {
        servers: servers ?? [...new Set(cells.map((c) => c.serverName))],
        scenarios: [{ id: "mcp-tool-call" }],
      } as RunToCompare["run"]["spec"],
    },
    commit,
    cells,
  });
  const labels = (runs: RunToCompare[]) => [...runTags(runs).values()];

  it("tags each run by its short commit, else its name, cut short when long", () => {
    expect(
      labels([
        run("run-aaaaaa111111", "nightly", "3f2a9c1d0e", []),
        run("run-bbbbbb222222", "before the pool change", null, []),
        run("run-cccccc333333", "a very long run name that would not fit", null, []),
      ]),
    ).toEqual(["3f2a9c1", "before the pool change", "a very long run name th…"]);
  });

  it("cuts two long names that start alike at their start, so what tells them apart shows", () => {
    expect(
      labels([
        run("r1", "Throughput by response size", null, []),
        run("r2", "Throughput by response size (quick)", null, []),
      ]),
    ).toEqual(["…ughput by response size", "…y response size (quick)"]);
  });

  it("leaves out the parts of a name that only repeat the run's servers and scenarios", () => {
    resetCells();
    const go = [cell("go", 10, 1, summary(1000, 4, 10))];
    resetCells();
    const both = [cell("go", 10, 1, summary(1000, 4, 10)), cell("node", 10, 1, summary(800, 6, 40))];
    expect(
      labels([
        run("r1", "go · mcp-tool-call · GC tuned", null, go),
        run("r2", "go vs node · pool of 8", null, both),
        run("r3", "go before", null, go),
      ]),
    ).toEqual(["GC tuned", "pool of 8", "before"]);
  });

  it("drops the run's server and scenario names word by word, with the joiners between them", () => {
    resetCells();
    const both = [cell("go", 10, 1, summary(1000, 4, 10)), cell("node", 10, 1, summary(800, 6, 40))];
    const tag = (name: string) => nameTag(run("r1", name, null, both));
    expect(tag("go vs node baseline check")).toBe("baseline check");
    expect(tag("baseline check: go vs. node")).toBe("baseline check");
    expect(tag("go, node and rust")).toBe("rust");
    expect(tag("Go vs Node · mcp-tool-call · pool of 8")).toBe("pool of 8");
    // A joiner between words of the name's own stays.
    expect(tag("go: cache vs no cache")).toBe("cache vs no cache");
    // A word that only contains a server's name is the name's own.
    expect(tag("gopher and nodes")).toBe("gopher and nodes");
    expect(tag("go vs node · mcp-tool-call")).toBeNull();
    expect(tag("go and node")).toBeNull();
  });

  it("tells auto-named runs apart by when they were created: the time of day, with the day unless shared", () => {
    resetCells();
    const cells = [cell("go", 10, 1, summary(1000, 4, 10))];
    expect(
      labels([
        run("r1", "go · mcp-tool-call", null, cells, undefined, "2025-05-03T09:30:00.000Z"),
        run("r2", "go · mcp-tool-call", null, cells, undefined, "2025-05-04T09:30:00.000Z"),
      ]),
    ).toEqual(["3 May 2025, 09:30 UTC", "4 May 2025, 09:30 UTC"]);
    expect(
      labels([
        run("r1", "go · mcp-tool-call", null, cells, undefined, "2025-05-03T09:30:00.000Z"),
        run("r2", "go · mcp-tool-call", null, cells, undefined, "2025-05-03T14:05:00.000Z"),
      ]),
    ).toEqual(["09:30 UTC", "14:05 UTC"]);
    // Alone without a tag, a run still gets one: when it was created, to the minute.
    expect(labels([run("r1", "nightly", null, cells), run("r2", "go · mcp-tool-call", null, cells)])).toEqual(
      ["nightly", "3 May 2025, 14:05 UTC"],
    );
  });

  it("tells runs of one name apart by their driver or load levels before their dates", () => {
    resetCells();
    const local = [cell("go", 10, 1, summary(1000, 4, 10))];
    resetCells();
    const docker = [{ ...cell("go", 10, 1, summary(900, 4, 10)), driver: "docker" }];
    resetCells();
    const heavier = [cell("go", 10, 1, summary(1000, 4, 10)), cell("go", 50, 1, summary(2000, 9, 10))];
    resetCells();
    const open = [openCell("go", 100, 1, summary(100, 3, 11))];
    expect(
      labels([run("r1", "go · mcp-tool-call", null, local), run("r2", "go · mcp-tool-call", null, docker)]),
    ).toEqual(["local", "docker"]);
    expect(
      labels([
        run("r1", "nightly", null, local),
        run("r2", "nightly", null, heavier),
        run("r3", "nightly", null, open),
      ]),
    ).toEqual(["nightly (10 VUs)", "nightly (10, 50 VUs)", "nightly (100 calls/s)"]);
  });

  it("falls back on the end of the run id when nothing else tells runs apart", () => {
    const same = "2025-05-03T14:05:07.000Z";
    expect(
      labels([
        run("run-bbbbbb222222", "go vs node", null, [], ["go", "node"], same),
        run("run-dddddd444444", "go vs node", null, [], ["go", "node"], same),
        run("run-eeeeee555555", "nightly", "3f2a9c1d0e", []),
        run("run-ffffff666666", "nightly", "3f2a9c1d0e", [], undefined, "2025-05-03T14:05:08.000Z"),
      ]),
    ).toEqual(["…222222", "…444444", "3f2a9c1 (14:05:07 UTC)", "3f2a9c1 (14:05:08 UTC)"]);
    // A name that reads like another run's date still gets a tag of its own.
    const tags = labels([run("r-000001", "3 May 2025", null, []), run("r-000002", "go", null, [], ["go"])]);
    expect(new Set(tags).size).toBe(2);
  });

  it("puts a bar per server and run, in each run's order, with indexes continuing from run to run", () => {
    resetCells();
    const before = [cell("go", 10, 1, summary(1000, 4, 10)), cell("node", 10, 1, summary(800, 6, 40))];
    resetCells();
    const after = [cell("go", 10, 1, summary(1300, 3, 11))];
    const { cells, serverOrder } = mergeRuns([
      run("r1", "before", null, before, ["node", "go"]),
      run("r2", "after", null, after),
    ]);
    expect(serverOrder).toEqual(["node · before", "go · before", "go · after"]);
    expect(cells.map((c) => `${c.index} ${c.serverName}`)).toEqual([
      "0 go · before",
      "1 node · before",
      "2 go · after",
    ]);
    const c = compareCells(cells, serverOrder);
    const groups = c.workloads[0]!.groups;
    expect(groups.map((g) => [g.serverName, g.opsRps.mean])).toEqual([
      ["node · before", 800],
      ["go · before", 1000],
      ["go · after", 1300],
    ]);
    expect(versusFastest(groups).get(groups[1]!)!.ratio).toBeCloseTo(1000 / 1300, 9);
  });

  it("keeps each run's own cell numbers in what people read, its indexes apart for keys", () => {
    resetCells();
    const before = [cell("go", 1, 1, summary(1000, 4, 10)), cell("node", 1, 1, summary(800, 6, 40))];
    resetCells();
    const after = [
      cell("go", 1, 1, summary(1300, 3, 11)),
      { ...cell("node", 1, 1, null), status: "failed" as const },
    ];
    const { cells, serverOrder } = mergeRuns([
      run("r1", "before", null, before),
      run("r2", "after", null, after),
    ]);
    expect(new Set(cells.map((c) => c.index)).size).toBe(cells.length);
    expect(cells.map(cellLabel)).toEqual([
      "#0 go · before · echo · 1 VU · r1",
      "#1 node · before · echo · 1 VU · r1",
      "#0 go · after · echo · 1 VU · r1",
      "#1 node · after · echo · 1 VU · r1",
    ]);
    const missing = compareCells(cells, serverOrder).missing;
    expect(missing.map((m) => `${cellNumber(m)} ${m.serverName}`)).toEqual(["#1 node · after"]);
  });

  it("keeps open-model levels apart from closed ones across runs", () => {
    resetCells();
    const closed = [cell("go", 100, 1, summary(1000, 4, 10))];
    resetCells();
    const open = [openCell("go", 100, 1, summary(100, 3, 11)), openCell("go", 200, 1, summary(199, 5, 12))];
    const { cells, serverOrder } = mergeRuns([
      run("r1", "closed", null, closed),
      run("r2", "open", null, open),
    ]);
    expect(cells.map((c) => [c.index, c.rate, c.maxVus])).toEqual([
      [0, null, null],
      [1, 100, 20],
      [2, 200, 20],
    ]);
    const [w] = compareCells(cells, serverOrder).workloads;
    expect(w!.levels.map(levelKey)).toEqual(["vus:100", "rate:100", "rate:200"]);
    expect(w!.groups.map((g) => `${levelKey(g)} ${g.serverName}`)).toEqual([
      "vus:100 go · closed",
      "rate:100 go · open",
      "rate:200 go · open",
    ]);
  });
});
