import { requestSizes } from "@perflab/scenarios";
import { echo, quickLocal, request, tool } from "./shared.ts";
import type { Study, StudyRow } from "./types.ts";

const SOURCE = "Node.js vs Go MCP servers, five dimensions";

/**
 * The study ran the official TypeScript SDK on Express and mcp-go, both over the legacy HTTP+SSE
 * transport (GET /sse, POST /message), on an Apple M2 Pro. The lab's scenarios speak Streamable
 * HTTP, so its rows run the same frameworks over that transport.
 */
const SSE_DIFFERS =
  "Streamable HTTP: the study's servers spoke the legacy HTTP+SSE transport, which the lab's scenarios do not drive yet";

function rows(published: { node: StudyRow["published"]; go: StudyRow["published"] }): StudyRow[] {
  return [
    {
      label: "Node.js",
      system: "official TypeScript SDK on Express, SSE transport, Node 22",
      server: "express",
      differs: SSE_DIFFERS,
      published: published.node,
    },
    {
      label: "Go",
      system: "mcp-go on net/http, SSE transport, Go 1.23",
      server: "go-mcp-go",
      differs: SSE_DIFFERS,
      published: published.go,
    },
  ];
}

const extras = ["node", "go"];
const rps = (scenario: number, value: [number, number]) => ({ scenario, vus: 50, figures: { rps: value } });
const latency = (scenario: number, p50Ms: number, p95Ms: number, p99Ms: number) => ({
  scenario,
  figures: { p50Ms, p95Ms, p99Ms },
});
const firstEvent = (vus: number, ms: number) => ({
  vus,
  figures: { firstEventMs: ms, note: "time from opening an SSE stream to its first event" },
});
const ram = (scenario: number, ramMb: number) => ({ scenario, figures: { ramMb } });

/**
 * The study gives no rounds: 3, then more (up to 8) until each neighbouring pair of servers is apart
 * or surely alike, since node and go are often within run-to-run noise of each other.
 */
const untilApart = { rounds: 3, adaptive: { maxRounds: 8 } };

/** Study 000's CPU-bound tool (JSON Schema validation) and I/O-bound one (a 50 ms upstream). */
const cpuAndIoTools = [tool("validate_document"), tool("fetch_upstream", { delay_ms: 50 })];

export const nodeVsGoStudies: readonly Study[] = [
  {
    id: "payload-sweep",
    source: SOURCE,
    title: "Throughput by response size",
    measures:
      "echo at 50 VUs answering 1 KB, 10 KB, 100 KB and 1 MB to a short message (pad_to_bytes: the response alone grows), then sent a message of those sizes (the request grows, and the response with it, as the study's JSON-RPC messages did; k6 reads the arguments from a file): requests per second and latency as messages grow. Its load and durations are the lab's choice: the study gives none.",
    rows: rows({
      node: [rps(4, [8000, 12000]), rps(5, [3000, 5000]), rps(6, [500, 800]), rps(7, [50, 80])],
      go: [rps(4, [15000, 25000]), rps(5, [8000, 15000]), rps(6, [2000, 4000]), rps(7, [300, 500])],
    }),
    extras,
    scenarios: [...requestSizes.map(echo), ...requestSizes.map(request)],
    published: { loadLevels: [{ vus: 50 }], durationSec: 60, warmupSec: 10, ...untilApart, driver: "local" },
    quick: { loadLevels: [{ vus: 50 }], ...quickLocal },
  },
  {
    id: "cpu-and-io-tools",
    source: SOURCE,
    title: "CPU-bound and I/O-bound tool latency",
    measures:
      "validate_document (JSON Schema, CPU) and fetch_upstream (a 50 ms upstream, I/O) at 50 VUs: p50, p95 and p99 of each, as a closed loop (cpu-and-io-tools-open starts them at a fixed rate). Load and durations are the lab's choice.",
    rows: rows({
      node: [latency(0, 8, 25, 80), latency(1, 55, 72, 120)],
      go: [latency(0, 2, 5, 8), latency(1, 53, 65, 85)],
    }),
    extras,
    scenarios: cpuAndIoTools,
    published: { loadLevels: [{ vus: 50 }], durationSec: 60, warmupSec: 10, ...untilApart, driver: "local" },
    quick: { loadLevels: [{ vus: 50 }], ...quickLocal },
  },
  {
    id: "cpu-and-io-tools-open",
    source: SOURCE,
    title: "CPU-bound and I/O-bound tool latency at a fixed arrival rate",
    measures:
      "The tools of cpu-and-io-tools started at a fixed 200 calls a second (open model) instead of by 50 VUs calling back to back: latency with the queueing a closed loop hides (coordinated omission), and the calls a server that falls behind drops. The study gives no arrival rate; 200 a second, below what either runtime serves here, is the lab's choice.",
    rows: rows({
      node: [latency(0, 8, 25, 80), latency(1, 55, 72, 120)],
      go: [latency(0, 2, 5, 8), latency(1, 53, 65, 85)],
    }),
    extras,
    scenarios: cpuAndIoTools,
    published: {
      loadLevels: [{ rate: 200 }],
      durationSec: 60,
      warmupSec: 10,
      ...untilApart,
      driver: "local",
    },
    quick: { loadLevels: [{ rate: 200 }], ...quickLocal },
  },
  {
    id: "session-storm",
    source: SOURCE,
    title: "Session establishment under concurrency",
    measures:
      "A new MCP session for every call (initialize, call, DELETE) at 10, 100 and 1,000 VUs back to back: what setting up and ending sessions costs. The study also opened 10,000 connections; a level here is at most 5,000 VUs.",
    rows: rows({
      node: [firstEvent(10, 12), firstEvent(100, 45), firstEvent(1000, 320)],
      go: [firstEvent(10, 8), firstEvent(100, 15), firstEvent(1000, 60)],
    }),
    extras,
    scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", session: "per-call" } }],
    published: {
      loadLevels: [{ vus: 10 }, { vus: 100 }, { vus: 1000 }],
      durationSec: 30,
      warmupSec: 5,
      ...untilApart,
      driver: "local",
    },
    quick: {
      loadLevels: [{ vus: 10 }, { vus: 100 }],
      durationSec: 15,
      warmupSec: 3,
      rounds: 1,
      driver: "local",
    },
  },
  {
    id: "memory-per-session",
    source: SOURCE,
    title: "Memory by open sessions",
    measures:
      "100, 1,000 and 10,000 sessions held open (100 VUs holding 1, 10 or 100 each, a call a second): RSS per session beside idle RSS. Durations are the lab's choice.",
    rows: rows({
      node: [ram(0, 120), ram(1, 350), ram(2, 1800)],
      go: [ram(0, 25), ram(1, 80), ram(2, 500)],
    }),
    extras,
    scenarios: [1, 10, 100].map((sessionsPerVu) => ({
      id: "mcp-tool-call",
      params: { tool: "echo", ...(sessionsPerVu > 1 ? { sessionsPerVu } : {}), thinkMs: 1000 },
    })),
    published: { loadLevels: [{ vus: 100 }], durationSec: 60, warmupSec: 10, rounds: 3, driver: "local" },
    quick: { loadLevels: [{ vus: 100 }], ...quickLocal },
  },
  {
    id: "soak",
    source: SOURCE,
    title: "24-hour soak at 500 calls per second",
    measures:
      "An open model of 500 echo calls a second for 24 hours per server: memory growth, dropped calls and p99 drift over the day.",
    rows: rows({
      node: [
        {
          figures: {
            note: "GC pauses 5–15 ms on average, 80–200 ms at most, 2–5 a second; 0.05 % of SSE connections dropped; memory drifting up; p99 30 % higher after 12 hours",
          },
        },
      ],
      go: [
        {
          figures: {
            note: "GC pauses 0.1–0.5 ms on average, 2–5 ms at most, 1–3 a second; 0.01 % of SSE connections dropped; memory flat; p99 unchanged",
          },
        },
      ],
    }),
    extras,
    scenarios: [tool("echo")],
    published: {
      loadLevels: [{ rate: 500 }],
      durationSec: 86_400,
      warmupSec: 60,
      rounds: 1,
      driver: "local",
    },
    quick: { loadLevels: [{ rate: 500 }], durationSec: 150, warmupSec: 30, rounds: 1, driver: "local" },
  },
];
