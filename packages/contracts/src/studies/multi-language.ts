import { mix, quickLocal, tool } from "./shared.ts";
import type { PublishedFigures, Study, StudyRow } from "./types.ts";

const SPRING_DIFFERS = "Spring AI 2.0 (2.0.0 for WebFlux) on Java 25";
const NO_NATIVE =
  "no GraalVM native-image toolchain can be installed from the package registries this lab reaches";

/** Study 001 printed figures of its four tools mixed in one load, not per tool. */
const mixed = (figures: PublishedFigures) => [
  {
    figures: { ...figures, note: figures.note ?? "the four tools mixed in one load, single-core containers" },
  },
];

const fourToolsRows: StudyRow[] = [
  {
    label: "Java",
    system: "Spring Boot 4.0 + Spring AI 2.0.0-M2 (WebMVC, @McpTool), Java 21",
    server: "spring-ai",
    differs: "Spring Boot 4.0.7 + Spring AI 2.0.1 on Java 25",
    published: mixed({
      rps: 1600,
      avgMs: 0.835,
      ramMb: 220,
      note: "over 1,600 requests/s; four tools mixed",
    }),
  },
  {
    label: "Go",
    system: "official Go SDK v1.2.0, Go 1.23",
    server: "go",
    differs: "official Go SDK v1.8.0",
    published: mixed({ rps: 1600, avgMs: 0.855, ramMb: 18, note: "over 1,600 requests/s; four tools mixed" }),
  },
  {
    label: "Node.js",
    system: "official TypeScript SDK 1.26 on Express, a new server per request, Node 20",
    server: "express:per-request",
    published: mixed({ rps: 550, avgMs: 10 }),
  },
  {
    label: "Python",
    system: "FastMCP 2.12 on FastAPI, uvicorn with one worker, Python 3.11",
    server: "fastmcp",
    differs: "FastMCP 4",
    published: mixed({ rps: 292, avgMs: 26.45 }),
  },
];

/** Study 002's table: its three tools mixed, 2 vCPU / 2 GB containers, three runs consolidated. */
const row = (label: string, system: string, rps: number, avgMs: number, ramMb: number) => ({
  label,
  system,
  published: [{ figures: { rps, avgMs, ramMb, note: "the three tools mixed in one load" } }],
});
/** A Spring row: on the JVM, the lab's Spring AI server (or its variant); a native image cannot be built here. */
const spring = (label: string, what: string, figures: [number, number, number], server: string | null) => ({
  ...row(label, `Spring Boot 4 ${what}${server ? "" : ", GraalVM native image"}`, ...figures),
  ...(server ? { server, differs: SPRING_DIFFERS } : { unavailable: NO_NATIVE }),
});

const fifteenRows: StudyRow[] = [
  {
    ...row("rust", "rmcp 0.16 + Tokio + deadpool-redis", 4845, 5.09, 10.9),
    server: "rust",
    differs: "rmcp 3.9",
  },
  {
    ...row("quarkus", "Quarkus 3.31 (Vert.x / Mutiny), Quarkiverse MCP server", 4739, 4.04, 194),
    server: "quarkus",
    differs: "Quarkus 3.33 with the Quarkiverse MCP server 1.13 on Java 25",
  },
  { ...row("go", "mcp-go + a tuned http.Transport", 3616, 6.87, 23.9), server: "go-mcp-go" },
  spring("java", "MVC (blocking thread pool)", [3540, 6.13, 368], "spring-ai"),
  spring("java-vt", "MVC on virtual threads", [3482, 9.03, 350], "spring-ai:virtual-threads"),
  {
    ...row("quarkus-native", "Quarkus 3.31, GraalVM native image", 3449, 10.36, 36),
    unavailable: NO_NATIVE,
  },
  {
    ...row("micronaut", "Micronaut 4.10 with its MCP module", 3382, 9.75, 216),
    server: "micronaut",
    differs:
      "Micronaut 4.10.8 with its MCP module 0.0.19 on Java 25, whose HTTP transport is stateless and answers JSON only: the lab's sessions and SSE answers are a filter in front of it",
  },
  spring("java-webflux", "WebFlux (Reactor / Netty)", [3032, 8.89, 485], "spring-ai-webflux"),
  spring("java-vt-native", "MVC on virtual threads", [2447, 19.06, 194], null),
  spring("java-webflux-native", "WebFlux", [2413, 14.43, 351], null),
  spring("java-native", "MVC", [2316, 16.2, 178], null),
  {
    ...row("micronaut-native", "Micronaut 4.10, GraalVM native image", 2161, 20.75, 63),
    unavailable: NO_NATIVE,
  },
  {
    ...row("bun", "official TypeScript SDK on Bun", 876, 48.46, 549),
    server: "bun",
    differs: "the lab's Node server (node:http, no Express) run by Bun",
  },
  {
    ...row("nodejs", "official TypeScript SDK on Express, WEB_CONCURRENCY=4", 423, 123.5, 395),
    server: "express:workers",
    differs: "a worker per CPU of the limit (2 on 2 vCPUs), not 4",
  },
  {
    ...row("python", "FastMCP + uvloop, 4 workers", 259, 251.62, 259),
    server: "fastmcp:workers",
    differs: "FastMCP 4, a worker per CPU of the limit (2 on 2 vCPUs), not 4",
  },
];

export const multiLanguageStudies: readonly Study[] = [
  {
    id: "four-tools",
    source: "Java, Go, Node.js and Python MCP servers, 3.9 M requests",
    title: "Four tools, four languages",
    measures:
      "fibonacci (CPU), fetch_upstream (I/O, an upstream that answers at once), transform_data (allocation) and sleep (a 10 ms database call) at 50 VUs, 5 minutes after 10 s of warm-up, 3 rounds in single-core containers: per-tool percentiles, RPS per MB and per CPU %, and run-to-run spread. As published, the four tools are mixed in one load as the study mixed them (MCP sessions of ten calls, equal weights: the study gives neither), with rates and percentiles per tool from the mix; the quick look measures each tool in a cell of its own.",
    rows: fourToolsRows,
    extras: ["java", "node", "python"],
    scenarios: [
      tool("fibonacci"),
      tool("fetch_upstream", { delay_ms: 0 }),
      tool("transform_data"),
      tool("sleep", { ms: 10 }),
    ],
    publishedScenarios: [
      mix(
        { tool: "fibonacci" },
        { tool: "fetch_upstream", arguments: { delay_ms: 0 } },
        { tool: "transform_data" },
        { tool: "sleep", arguments: { ms: 10 } },
      ),
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
    source: "15 MCP servers under I/O-bound tools (Redis and an HTTP API)",
    title: "Redis and HTTP API tools, every runtime",
    measures:
      "search_products, get_user_cart and checkout (Redis and the product API, fixtures re-seeded per server) at 50 VUs, 5 minutes after 60 s of warm-up, 3 rounds in containers of 2 vCPU / 2 GB: RPS, average latency and RAM. As published, the three tools are mixed in one load as the study mixed them (MCP sessions of ten calls, equal weights), with rates and percentiles per tool from the mix; the quick look measures each tool in a cell of its own.",
    rows: fifteenRows,
    extras: ["go", "java", "node", "python:workers"],
    scenarios: [tool("search_products"), tool("get_user_cart"), tool("checkout")],
    publishedScenarios: [mix({ tool: "search_products" }, { tool: "get_user_cart" }, { tool: "checkout" })],
    published: {
      loadLevels: [{ vus: 50 }],
      durationSec: 300,
      warmupSec: 60,
      rounds: 3,
      driver: "docker",
      limits: { cpus: 2, memoryMb: 2048 },
    },
    // Fourteen servers × three tools: 14 s each keeps the quick look under a quarter of an hour.
    quick: { loadLevels: [{ vus: 50 }], ...quickLocal, durationSec: 14 },
  },
];
