import type { DriverId, TMatrixSpecInput } from "./matrix.ts";

/**
 * The published studies perflab reproduces (`reference/` in the design notes), each as the matrix
 * that measures what it measured. `published` follows the study's design where it gives one
 * (durations, warm-up, rounds, load levels, containers with limits) and the lab's choices where it
 * does not (each `measures` says which); `quick` is the same workloads shortened to a few minutes,
 * to see the shape before spending hours, on the lab's default driver. A study whose dimensions need
 * different load levels per workload is split into several matrices, and a study that mixed its
 * tools in one load is measured one tool per cell.
 */
export type Study = {
  id: string;
  /** The study it reproduces, as its authors titled it. */
  source: string;
  title: string;
  /** What the matrix measures, in one or two sentences. */
  measures: string;
  /** Reference servers the study compared; those the lab does not have are left out. */
  servers: string[];
  scenarios: TMatrixSpecInput["scenarios"];
  published: StudyLoad;
  quick: StudyLoad;
};

type StudyLoad = Pick<
  TMatrixSpecInput,
  "loadLevels" | "durationSec" | "warmupSec" | "rounds" | "driver" | "limits"
>;

export type StudyVariant = "published" | "quick";

const echo = (padToBytes: number) => ({
  id: "mcp-tool-call",
  params: { tool: "echo", arguments: { message: "hello", pad_to_bytes: padToBytes } },
});
const tool = (name: string, args?: Record<string, unknown>) => ({
  id: "mcp-tool-call",
  params: args ? { tool: name, arguments: args } : { tool: name },
});
const quickLocal = { durationSec: 20, warmupSec: 5, rounds: 1, driver: "local" } as const;

const NODE_VS_GO = "Node.js vs Go MCP servers, five dimensions";
const MULTI_LANGUAGE = "Java, Go, Node.js and Python MCP servers, 3.9 M requests";
const FIFTEEN_SERVERS = "15 MCP servers under I/O-bound tools (Redis and an HTTP API)";

export const studies: readonly Study[] = [
  {
    id: "payload-sweep",
    source: NODE_VS_GO,
    title: "Throughput by response size",
    measures:
      "echo answering 1 KB, 10 KB, 100 KB and 1 MB (pad_to_bytes) at 50 VUs: requests per second and latency as the response grows. The study grew the request too; tool arguments here stay under 64 KiB, so only the response does. Its load and durations are the lab's choice: the study gives none.",
    servers: ["node", "go"],
    scenarios: [echo(1024), echo(10_240), echo(102_400), echo(1_048_576)],
    published: { loadLevels: [{ vus: 50 }], durationSec: 60, warmupSec: 10, rounds: 3, driver: "local" },
    quick: { loadLevels: [{ vus: 50 }], ...quickLocal },
  },
  {
    id: "cpu-and-io-tools",
    source: NODE_VS_GO,
    title: "CPU-bound and I/O-bound tool latency",
    measures:
      "validate_document (JSON Schema, CPU) and fetch_upstream (a 50 ms upstream, I/O) at 50 VUs: p50, p95 and p99 of each. Load and durations are the lab's choice.",
    servers: ["node", "go"],
    scenarios: [tool("validate_document"), tool("fetch_upstream", { delay_ms: 50 })],
    published: { loadLevels: [{ vus: 50 }], durationSec: 60, warmupSec: 10, rounds: 3, driver: "local" },
    quick: { loadLevels: [{ vus: 50 }], ...quickLocal },
  },
  {
    id: "session-storm",
    source: NODE_VS_GO,
    title: "Session establishment under concurrency",
    measures:
      "A new MCP session for every call (initialize, call, DELETE) at 10, 100 and 1,000 VUs back to back: what setting up and ending sessions costs. The study also opened 10,000 connections; a level here is at most 5,000 VUs.",
    servers: ["node", "go"],
    scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", session: "per-call" } }],
    published: {
      loadLevels: [{ vus: 10 }, { vus: 100 }, { vus: 1000 }],
      durationSec: 30,
      warmupSec: 5,
      rounds: 3,
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
    source: NODE_VS_GO,
    title: "Memory by open sessions",
    measures:
      "100, 1,000 and 10,000 sessions held open (100 VUs holding 1, 10 or 100 each, a call a second): RSS per session beside idle RSS. Durations are the lab's choice.",
    servers: ["node", "go"],
    scenarios: [1, 10, 100].map((sessionsPerVu) => ({
      id: "mcp-tool-call",
      params: { tool: "echo", ...(sessionsPerVu > 1 ? { sessionsPerVu } : {}), thinkMs: 1000 },
    })),
    published: { loadLevels: [{ vus: 100 }], durationSec: 60, warmupSec: 10, rounds: 3, driver: "local" },
    quick: { loadLevels: [{ vus: 100 }], ...quickLocal },
  },
  {
    id: "soak",
    source: NODE_VS_GO,
    title: "24-hour soak at 500 calls per second",
    measures:
      "An open model of 500 echo calls a second for 24 hours per server: memory growth, dropped calls and p99 drift over the day.",
    servers: ["node", "go"],
    scenarios: [tool("echo")],
    published: {
      loadLevels: [{ rate: 500 }],
      durationSec: 86_400,
      warmupSec: 60,
      rounds: 1,
      driver: "local",
    },
    quick: { loadLevels: [{ rate: 500 }], durationSec: 300, warmupSec: 30, rounds: 1, driver: "local" },
  },
  {
    id: "four-tools",
    source: MULTI_LANGUAGE,
    title: "Four tools, four languages",
    measures:
      "fibonacci (CPU), fetch_upstream (I/O, an upstream that answers at once), transform_data (allocation) and sleep (a 10 ms database call) at 50 VUs, 5 minutes after 10 s of warm-up, 3 rounds in single-core containers: per-tool percentiles, RPS per MB and per CPU %, and run-to-run spread. The study mixed the four tools in one load; here each tool is a cell of its own.",
    servers: ["java", "go", "node", "python"],
    scenarios: [
      tool("fibonacci"),
      tool("fetch_upstream", { delay_ms: 0 }),
      tool("transform_data"),
      tool("sleep", { ms: 10 }),
    ],
    published: {
      loadLevels: [{ vus: 50 }],
      durationSec: 300,
      warmupSec: 10,
      rounds: 3,
      driver: "docker",
      limits: { cpus: 1 },
    },
    quick: { loadLevels: [{ vus: 50 }], ...quickLocal },
  },
  {
    id: "io-tools",
    source: FIFTEEN_SERVERS,
    title: "Redis and HTTP API tools, every runtime",
    measures:
      "search_products, get_user_cart and checkout (Redis and the product API, fixtures re-seeded per server) at 50 VUs, 5 minutes after 60 s of warm-up, 3 rounds in containers of 2 vCPU / 2 GB: RPS, average latency and RAM. The study mixed the three tools in one load; here each tool is a cell of its own.",
    servers: ["rust", "go", "java", "bun", "node", "python"],
    scenarios: [tool("search_products"), tool("get_user_cart"), tool("checkout")],
    published: {
      loadLevels: [{ vus: 50 }],
      durationSec: 300,
      warmupSec: 60,
      rounds: 3,
      driver: "docker",
      limits: { cpus: 2, memoryMb: 2048 },
    },
    quick: { loadLevels: [{ vus: 50 }], ...quickLocal },
  },
  {
    id: "rest-postgres",
    source: "Go vs Node.js REST API with a PostgreSQL lookup",
    title: "REST route with a Postgres lookup",
    measures:
      "GET /rest/users/{id} (a primary-key lookup through each language's pooled driver) at 100, 500 and 1,000 connections, 30 s after 10 s of warm-up: RPS, average and p99 latency, RSS, errors.",
    servers: ["go", "node"],
    scenarios: [{ id: "http-route", params: { route: "/rest/users/{id}" } }],
    published: {
      loadLevels: [{ vus: 100 }, { vus: 500 }, { vus: 1000 }],
      durationSec: 30,
      warmupSec: 10,
      rounds: 1,
      driver: "local",
    },
    quick: {
      loadLevels: [{ vus: 100 }, { vus: 500 }],
      durationSec: 10,
      warmupSec: 3,
      rounds: 1,
      driver: "local",
    },
  },
  {
    id: "trivial-route",
    source: "Node vs Go performance comparison",
    title: "A trivial HTTP route as connections grow",
    measures:
      "GET /rest/time at 10, 100, 500 and 1,000 connections: the most requests per second, mean latency and its spread, CPU over time. Durations are the lab's choice.",
    servers: ["node", "go"],
    scenarios: [{ id: "http-route", params: { route: "/rest/time" } }],
    published: {
      loadLevels: [{ vus: 10 }, { vus: 100 }, { vus: 500 }, { vus: 1000 }],
      durationSec: 30,
      warmupSec: 5,
      rounds: 1,
      driver: "local",
    },
    quick: {
      loadLevels: [{ vus: 10 }, { vus: 100 }],
      durationSec: 10,
      warmupSec: 3,
      rounds: 1,
      driver: "local",
    },
  },
];

/**
 * The matrix a study queues on a lab with `available` servers: its servers that the lab has (in
 * the study's order) and the load of the variant. `missing` names the study's servers the lab lacks.
 * `quickDriver`, the lab's default driver, runs the quick variants (a lab whose app image has no
 * JDK or Python runs them in containers).
 */
export function studyMatrix(
  study: Study,
  variant: StudyVariant,
  available: readonly string[],
  quickDriver?: DriverId,
): { spec: TMatrixSpecInput; missing: string[] } {
  const have = new Set(available);
  const load = variant === "quick" && quickDriver ? { ...study.quick, driver: quickDriver } : study[variant];
  return {
    spec: {
      name: `${study.title}${variant === "quick" ? " (quick)" : ""}`,
      servers: study.servers.filter((s) => have.has(s)),
      scenarios: study.scenarios,
      ...load,
      cooldownSec: 2,
    },
    missing: study.servers.filter((s) => !have.has(s)),
  };
}

export function findStudy(id: string): Study | undefined {
  return studies.find((s) => s.id === id);
}
