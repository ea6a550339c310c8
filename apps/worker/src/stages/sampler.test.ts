import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ResourceSample } from "@perflab/metrics";
import { describe, expect, it } from "vitest";
import type { RunningServer, ServerResources } from "../drivers/types.ts";
import { fetchRuntime, startSampler } from "./sampler.ts";

/** A server whose readings come from a list, one per request, the last repeated. */
function serverReading(readings: (ServerResources | null)[]): RunningServer {
  let i = 0;
  return {
    startedAt: Date.now(),
    exited: new Promise(() => {}),
    resources: async () => readings[Math.min(i++, readings.length - 1)] ?? null,
    stop: async () => ({ exitCode: 0, signal: null, oomKilled: false }),
    logTail: () => "",
  };
}

async function samples(server: RunningServer, count: number): Promise<ResourceSample[]> {
  const got: ResourceSample[] = [];
  const sampler = startSampler({
    server,
    k6Resources: async () => null,
    hostCpu: async () => null,
    onSample: (s) => got.push(s),
    intervalMs: 50,
  });
  while (got.length < count) await new Promise((r) => setTimeout(r, 10));
  await sampler.stop();
  return got;
}

describe("startSampler", () => {
  it("computes a CPU rate over the times the source read its counters, not when it was asked", async () => {
    // An engine's samples a second apart, handed over 50 ms apart: 0.5 s of CPU in 1 s is 50 %.
    const t0 = Date.now();
    const got = await samples(
      serverReading([
        { cpuSeconds: 10, rssBytes: 1_000_000, at: t0 },
        { cpuSeconds: 10.5, rssBytes: 2_000_000, at: t0 + 1_000 },
        { cpuSeconds: 11.5, rssBytes: 3_000_000, at: t0 + 2_000 },
      ]),
      2,
    );
    expect(got[0]!.cpuPct).toBeCloseTo(50, 6);
    expect(got[0]!.rssBytes).toBe(2_000_000);
    expect(got[1]!.cpuPct).toBeCloseTo(100, 6);
  });

  it("gives no CPU rate for the same sample read twice, instead of 0 %", async () => {
    const t0 = Date.now();
    const same = { cpuSeconds: 3, rssBytes: 5_000_000, at: t0 + 1_000 };
    const got = await samples(serverReading([{ cpuSeconds: 2, rssBytes: 5_000_000, at: t0 }, same, same]), 2);
    expect(got[0]!.cpuPct).toBeCloseTo(100, 6);
    expect(got[1]!.cpuPct).toBeNull();
    expect(got[1]!.rssBytes).toBe(5_000_000);
  });

  it("gives no CPU rate, rather than 0 %, for a counter that went back", async () => {
    const t0 = Date.now();
    const got = await samples(
      serverReading([
        { cpuSeconds: 5, rssBytes: 1, at: t0 },
        { cpuSeconds: 4, rssBytes: 1, at: t0 + 1_000 },
        { cpuSeconds: 4.5, rssBytes: 1, at: t0 + 2_000 },
      ]),
      2,
    );
    expect(got[0]!.cpuPct).toBeNull();
    expect(got[1]!.cpuPct).toBeCloseTo(50, 6);
  });

  it("falls back to the request times when a source gives none (/proc is read when asked)", async () => {
    const got = await samples(
      serverReading([
        { cpuSeconds: 0, rssBytes: 1 },
        { cpuSeconds: 0.05, rssBytes: 1 },
      ]),
      1,
    );
    // 50 ms of CPU over one ~50 ms interval: about one core.
    expect(got[0]!.cpuPct!).toBeGreaterThan(40);
    expect(got[0]!.cpuPct!).toBeLessThan(250);
  });

  it("keeps each second's longest GC pause since the previous reading instead of the pause list", async () => {
    const readings = [
      { gc_count: 1, gc_pauses_recent: [[1, 4]] },
      {
        gc_count: 3,
        gc_pauses_recent: [
          [1, 4],
          [2, 0.5],
          [3, 2],
        ],
      },
      {
        gc_count: 3,
        gc_pauses_recent: [
          [1, 4],
          [2, 0.5],
          [3, 2],
        ],
      },
    ];
    let i = 0;
    const got: ResourceSample[] = [];
    const sampler = startSampler({
      server: serverReading([{ cpuSeconds: 0, rssBytes: 1 }]),
      k6Resources: async () => null,
      hostCpu: async () => null,
      runtime: async () => readings[Math.min(i++, readings.length - 1)],
      onSample: (s) => got.push(s),
      intervalMs: 50,
    });
    while (got.length < 2) await new Promise((r) => setTimeout(r, 10));
    await sampler.stop();
    // The first reading only sets where pauses start (its 4 ms pause is before the first sample).
    expect(got[0]!.runtime).toEqual({ gc_count: 3, gc_pause_max_ms: 2 });
    expect(got[1]!.runtime).toEqual({ gc_count: 3, gc_pause_max_ms: 0 });
  });
});

describe("fetchRuntime", () => {
  /** A server answering each path as `routes` says; counts the connections it accepted. */
  async function serve(routes: Record<string, (res: http.ServerResponse) => void>) {
    const server = http.createServer((req, res) =>
      (routes[req.url ?? ""] ?? ((r) => r.writeHead(404).end()))(res),
    );
    let connections = 0;
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      base,
      connections: () => connections,
      close: () => new Promise((resolve) => server.close(resolve).closeAllConnections()),
    };
  }

  it("reads the JSON on one kept connection, and gives undefined for an error, bad JSON or silence", async () => {
    const s = await serve({
      "/debug/runtime": (res) =>
        res.writeHead(200, { "content-type": "application/json" }).end('{"gc":{"n":3}}'),
      "/broken": (res) => res.writeHead(500).end("{}"),
      "/text": (res) => res.writeHead(200).end("not json"),
      "/silent": () => undefined,
      "/trickle": (res) => res.writeHead(200).write('{"gc":'),
    });
    try {
      for (let i = 0; i < 3; i++)
        expect(await fetchRuntime(`${s.base}/debug/runtime`)).toEqual({ gc: { n: 3 } });
      expect(s.connections()).toBe(1);
      expect(await fetchRuntime(`${s.base}/broken`)).toBeUndefined();
      expect(await fetchRuntime(`${s.base}/text`)).toBeUndefined();
      for (const path of ["/silent", "/trickle"]) {
        const started = Date.now();
        expect(await fetchRuntime(`${s.base}${path}`)).toBeUndefined();
        expect(Date.now() - started).toBeLessThan(3_000);
      }
    } finally {
      await s.close();
    }
    expect(await fetchRuntime(`${s.base}/debug/runtime`)).toBeUndefined();
  });
});
