import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import type { CellDto } from "../lib/dto";
import type { ReportCellDto } from "../lib/report-dto";
import { CELLS_CSV_HEADERS, cellsCsv } from "./cells-csv";

const base: CellDto = {
  id: "cell-0",
  index: 0,
  serverName: "go",
  scenario: "mcp-tool-call",
  vus: 10,
  rate: null,
  maxVus: null,
  params: { tool: "echo", arguments: { message: "hi, there" } },
  round: 1,
  status: "succeeded",
  stage: null,
  driver: "docker",
  limits: { cpus: 1.5, memoryMb: 512, cpuset: null },
  image: "perflab/server-go:abc",
  imageId: "sha256:0123",
  runtimeVersion: "go1.26.8",
  idleRssBytes: 8 * 1024 * 1024,
  heldSessions: 10,
  rssPerSessionBytes: null,
  parallelism: { GOMAXPROCS: 2 },
  durationSeconds: 30,
  warmupSeconds: 5,
  k6Version: "k6 v1.8.1 (go1.26.8, linux/amd64)",
  hostFingerprint: {
    hostId: "lab-1",
    hostname: "lab-1",
    cpuModel: "Intel Xeon",
    cores: 2,
    kernel: "Linux 6.18",
  },
  coldStartMs: 37.5,
  exitCode: 0,
  exitSignal: null,
  oomKilled: false,
  k6Saturated: true,
  otherCpuPct: 62.5,
  machineBusy: true,
  warmingUp: true,
  error: null,
  logTail: null,
  startedAt: "2026-11-23T10:00:00.000Z",
  finishedAt: "2026-11-23T10:00:40.000Z",
  summary: {
    requests: 60_000,
    errors: 3,
    ops: 30_000,
    httpRps: 2_000,
    opsRps: 1_000,
    requestsPerOp: 2,
    latency: { avgMs: 4.5, minMs: 0.3, maxMs: 80, p50: 4, p90: 7, p95: 9, p99: 15.25, p999: 40 },
    operations: [],
    cpuAvgPct: 80,
    cpuPeakPct: 120,
    rssAvgBytes: 20 * 1024 * 1024,
    rssPeakBytes: 24 * 1024 * 1024,
    k6CpuAvgPct: 95,
    k6CpuPeakPct: 99,
    k6RssPeakBytes: 100 * 1024 * 1024,
    droppedCalls: null,
    drift: null,
    windowSeconds: 30,
  },
};

describe("cellsCsv", () => {
  it("writes a header and one row per cell, with units in the names and plain numbers", () => {
    const cells: ReportCellDto[] = [
      { ...base, serverBuild: { runtime: "go 1.26.8", sdk: { name: "go-sdk", version: "1.2.0" } } },
      {
        ...base,
        id: "cell-1",
        index: 1,
        serverName: "node",
        status: "failed",
        driver: "local",
        limits: null,
        summary: null,
        k6Saturated: false,
        exitCode: 1,
        // A reason with the characters CSV must quote.
        error: 'server exited with code 1: "bind", address in use\nsecond line',
        serverBuild: null,
      },
    ];
    const text = cellsCsv("run-1", cells);
    // A UTF-8 byte order mark first, for Excel.
    expect(text.split("\r\n")[0]).toBe(`\uFEFF${CELLS_CSV_HEADERS.join(",")}`);
    const rows = parse(text, { columns: true, bom: true }) as Record<string, string>[];
    expect(rows).toHaveLength(2);
    const [go, node] = rows;
    expect(go).toMatchObject({
      run_id: "run-1",
      cell_index: "0",
      server: "go",
      tool: "echo",
      session: "per-vu",
      params_json: '{"tool":"echo","arguments":{"message":"hi, there"}}',
      vus: "10",
      rate_per_s: "",
      max_vus: "",
      driver: "docker",
      limit_cpus: "1.5",
      limit_memory_mb: "512",
      limit_cpuset: "",
      requests: "60000",
      ops_per_s: "1000",
      latency_p99_ms: "15.25",
      ops_per_cpu_s: "1250",
      rss_peak_mb: "24",
      idle_rss_mb: "8",
      cold_start_ms: "37.5",
      k6_saturated: "true",
      other_cpu_pct: "62.5",
      machine_busy: "true",
      warming_up: "true",
      oom_killed: "false",
      runtime: "go 1.26.8",
      runtime_version: "go1.26.8",
      sdk: "go-sdk 1.2.0",
      parallelism_json: '{"GOMAXPROCS":2}',
      host_id: "lab-1",
      cores: "2",
      started_at: "2026-11-23T10:00:00.000Z",
    });
    // No summary: empty fields, not zeros; the error survives its comma, quotes and newline.
    expect(node).toMatchObject({
      server: "node",
      status: "failed",
      requests: "",
      latency_p99_ms: "",
      limit_cpus: "",
    });
    expect(node!.error).toBe(cells[1]!.error);
    expect(node!.exit_code).toBe("1");
  });

  it("gives an open-model cell's rate and VU pool right after the (empty) VUs", () => {
    // A cell frozen in a report before the open model existed has neither field.
    const { rate: _rate, maxVus: _maxVus, ...old } = base;
    const cells: ReportCellDto[] = [
      {
        ...base,
        vus: null,
        rate: 500,
        maxVus: 100,
        summary: { ...base.summary!, droppedCalls: 12 },
        serverBuild: null,
      },
      { ...old, id: "cell-1", index: 1, serverBuild: null } as ReportCellDto,
    ];
    const headers = CELLS_CSV_HEADERS.slice(CELLS_CSV_HEADERS.indexOf("vus"));
    expect(headers.slice(0, 4)).toEqual(["vus", "rate_per_s", "max_vus", "round"]);
    const rows = parse(cellsCsv("run-4", cells), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows[0]).toMatchObject({
      vus: "",
      rate_per_s: "500",
      max_vus: "100",
      ops_per_s: "1000",
      dropped_calls: "12",
    });
    expect(rows[1]).toMatchObject({ vus: "10", rate_per_s: "", max_vus: "", dropped_calls: "" });
  });

  it("gives an http-route cell's route in its own column, and no tool or session", () => {
    const cells: ReportCellDto[] = [
      { ...base, serverBuild: null },
      {
        ...base,
        id: "cell-1",
        index: 1,
        scenario: "http-route",
        params: { route: "/rest/users/{id}" },
        serverBuild: null,
      },
    ];
    const headers = CELLS_CSV_HEADERS.slice(CELLS_CSV_HEADERS.indexOf("scenario"));
    expect(headers.slice(0, 5)).toEqual(["scenario", "tool", "session", "route", "params_json"]);
    const rows = parse(cellsCsv("run-5", cells), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows[0]).toMatchObject({ scenario: "mcp-tool-call", tool: "echo", session: "per-vu", route: "" });
    expect(rows[1]).toMatchObject({
      scenario: "http-route",
      tool: "",
      session: "",
      route: "/rest/users/{id}",
      params_json: '{"route":"/rest/users/{id}"}',
    });
  });

  it("gives the sessions a cell held and what each cost, as the last columns", () => {
    const mb = 1024 * 1024;
    const held: ReportCellDto = {
      ...base,
      vus: 20,
      params: { tool: "echo", arguments: {}, sessionsPerVu: 100, thinkMs: 1000 },
      idleRssBytes: 10 * mb,
      summary: { ...base.summary!, rssAvgBytes: 50 * mb },
      serverBuild: null,
    };
    const [row, plain] = parse(cellsCsv("run-1", [held, { ...base, serverBuild: null }]), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    const sessionsAt = CELLS_CSV_HEADERS.indexOf("sessions_per_vu");
    expect(CELLS_CSV_HEADERS.slice(sessionsAt, sessionsAt + 4)).toEqual([
      "sessions_per_vu",
      "think_ms",
      "held_sessions",
      "rss_per_session_kb",
    ]);
    expect(row).toMatchObject({ sessions_per_vu: "100", think_ms: "1000", held_sessions: "2000" });
    expect(Number(row!.rss_per_session_kb)).toBeCloseTo((40 * 1024) / 2000, 1);
    // A cell calling back to back holds its VUs' sessions, but their cost is not told apart from the load's.
    expect(plain).toMatchObject({
      sessions_per_vu: "",
      think_ms: "",
      held_sessions: "10",
      rss_per_session_kb: "",
    });
  });

  it("writes only the header for a run without cells", () => {
    expect(parse(cellsCsv("run-2", []), { columns: true, bom: true })).toEqual([]);
  });

  it("keeps a bare line break inside its field and never writes a spreadsheet formula", () => {
    const cells: ReportCellDto[] = [
      { ...base, error: "exited\nsecond line", serverBuild: null },
      { ...base, id: "cell-1", index: 1, error: "=HYPERLINK(1)", serverBuild: null },
      { ...base, id: "cell-2", index: 2, error: "-bash: no such file", serverBuild: null },
    ];
    const rows = parse(cellsCsv("run-3", cells), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => r.cell_index)).toEqual(["0", "1", "2"]);
    expect(rows[0]!.error).toBe("exited\nsecond line");
    // A leading quote makes a spreadsheet read the field as text.
    expect(rows[1]!.error).toBe("'=HYPERLINK(1)");
    expect(rows[2]!.error).toBe("'-bash: no such file");
    expect(rows[0]!.requests).toBe("60000");
  });

  it("writes the latency spread, requests per MB, the runtime's GC, session drops and timeouts last but the storm's, empty where a cell has none", () => {
    const figures = {
      latencyStddevMs: 0.4,
      rpsPerMb: 25,
      gcCollectionsPerSec: 3.5,
      gcPauseAvgMs: 0.2,
      gcPauseMaxMs: 1.25,
      sessionDropPct: 2.5,
      timeouts: 7,
    };
    const measured: ReportCellDto = { ...base, summary: { ...base.summary!, ...figures }, serverBuild: null };
    // A report frozen before the figures existed has none of them.
    const older: ReportCellDto = { ...base, serverBuild: null };
    const [row, old] = parse(cellsCsv("run-4", [measured, older]), { columns: true, bom: true }) as Record<
      string,
      string
    >[];
    expect(CELLS_CSV_HEADERS.slice(-8, -1)).toEqual([
      "latency_stddev_ms",
      "rps_per_mb",
      "gc_collections_per_s",
      "gc_pause_avg_ms",
      "gc_pause_max_ms",
      "session_drop_pct",
      "timeouts",
    ]);
    expect(row).toMatchObject({
      latency_stddev_ms: "0.4",
      rps_per_mb: "25",
      gc_collections_per_s: "3.5",
      gc_pause_avg_ms: "0.2",
      gc_pause_max_ms: "1.25",
      session_drop_pct: "2.5",
      timeouts: "7",
    });
    expect(old).toMatchObject({ latency_stddev_ms: "", rps_per_mb: "", gc_pause_max_ms: "", timeouts: "" });
  });

  it("writes a connection storm's figures per level last, as JSON, empty for other scenarios", () => {
    const storm = {
      idle: { rssBytes: 17e6, fds: 11 },
      levels: [
        {
          level: 10,
          established: 10,
          failed: 0,
          dropped: 0,
          silent: 10,
          establishMs: { p50: 2, p90: 3, p99: 4 },
          firstEventMs: null,
          rssBytes: 17.65e6,
          fds: 29,
          rssPerStreamBytes: 65_000,
          fdsAdded: 18,
        },
      ],
    };
    const stormed: ReportCellDto = {
      ...base,
      scenario: "connection-storm",
      summary: { ...base.summary!, storm },
      serverBuild: null,
    };
    const [row, other] = parse(cellsCsv("run-5", [stormed, { ...base, serverBuild: null }]), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    expect(CELLS_CSV_HEADERS.at(-1)).toBe("storm_json");
    expect(JSON.parse(row!.storm_json!)).toEqual(storm);
    expect(other!.storm_json).toBe("");
  });
});
