import type { PublishedCell, Study } from "./types.ts";

type Level = [vus: number, rps: number, avgMs: number, p99Ms: number, ramMb: number, errors: number];
/** Study 003's tables, one per connection count (wrk, 4 threads, t3.medium). */
const restLevels = (levels: Level[]): PublishedCell[] =>
  levels.map(([vus, rps, avgMs, p99Ms, ramMb, errors]) => ({
    vus,
    figures: { rps, avgMs, p99Ms, ramMb, errors },
  }));

type TrivialLevel = [vus: number, rps: number, avgMs: number, sdMs: number];
/** Study 004's table (OSX laptop, the load generator on the same machine). */
const trivialLevels = (levels: TrivialLevel[]): PublishedCell[] =>
  levels.map(([vus, rps, avgMs, sdMs]) => ({ vus, figures: { rps, avgMs, sdMs } }));

export const restStudies: readonly Study[] = [
  {
    id: "rest-postgres",
    source: "Go vs Node.js REST API with a PostgreSQL lookup",
    title: "REST route with a Postgres lookup",
    measures:
      "GET /rest/users/{id} (a primary-key lookup through each language's pooled driver) at 100, 500 and 1,000 connections, 30 s after 10 s of warm-up: RPS, average and p99 latency, RSS, errors (wrk's: requests past its 2 s timeout, counted here as timeouts under the same client timeout).",
    rows: [
      {
        label: "Go (Chi)",
        system: "chi router, pgx/v5 pool of 25, encoding/json",
        server: "chi",
        published: restLevels([
          [100, 14_820, 6.7, 18, 22, 0],
          [500, 13_980, 35, 89, 38, 0],
          [1000, 12_740, 78, 210, 61, 0],
        ]),
      },
      {
        label: "Node.js (Fastify)",
        system: "Fastify, pg pool of 25, default JSON serializer",
        server: "fastify",
        published: restLevels([
          [100, 11_340, 8.8, 31, 68, 0],
          [500, 10_110, 49, 187, 94, 3],
          [1000, 8350, 119, 580, 148, 27],
        ]),
      },
    ],
    extras: ["go", "node"],
    scenarios: [{ id: "http-route", params: { route: "/rest/users/{id}" } }],
    published: {
      loadLevels: [{ vus: 100 }, { vus: 500 }, { vus: 1000 }],
      durationSec: 30,
      warmupSec: 10,
      rounds: 1,
      driver: "local",
      // wrk's 2 s timeout: the study's errors (3 and 27 for Node) are requests that waited longer.
      timeoutMs: 2000,
    },
    quick: {
      loadLevels: [{ vus: 100 }, { vus: 500 }],
      durationSec: 10,
      warmupSec: 3,
      rounds: 1,
      driver: "local",
      timeoutMs: 2000,
    },
  },
  {
    id: "trivial-route",
    source: "Node vs Go performance comparison",
    title: "A trivial HTTP route as connections grow",
    measures:
      "GET /rest/time at 10, 100, 500 and 1,000 connections: the most requests per second, mean latency and its spread, CPU over time. Durations are the lab's choice.",
    rows: [
      {
        label: "Node",
        system: "node:http answering the current time",
        server: "node",
        differs: "the route of the lab's MCP server, beside its MCP transport",
        published: trivialLevels([
          [10, 12_900, 37.4, 95],
          [100, 12_900, 7, 10],
          [500, 12_500, 67.5, 135],
          [1000, 12_100, 437, 103.5],
        ]),
      },
      {
        label: "Go",
        system: "net/http answering the current time",
        server: "go",
        differs: "the route of the lab's MCP server, beside its MCP transport",
        published: trivialLevels([
          [10, 39_500, 164, 108],
          [100, 39_000, 3, 2],
          [500, 38_600, 6.2, 3.8],
          [1000, 38_000, 13.8, 7.7],
        ]),
      },
    ],
    extras: [],
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
