import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stormPlan } from "../../../k6/storm-plan.js";
import { ZConnectionStormParams } from "./params.ts";
import { connectionStormEnv, ZConnectionStormRun } from "./run.ts";

const k6File = (file: string) => readFileSync(path.resolve(import.meta.dirname, "../../../k6", file), "utf8");
const script = `${k6File("connection-storm.js")}\n${k6File("load.js")}`;
const base = { target: "http://127.0.0.1:8080", vus: 10, durationSec: 20, levels: [10, 100] } as const;

const fields = (input: object) => {
  const result = ZConnectionStormRun.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("the connection-storm scenario's parameters", () => {
  it("become the environment the k6 script reads", () => {
    const env = connectionStormEnv({
      ...base,
      durationSec: 70,
      warmupSec: 5,
      stream: "legacy-sse",
      rampSec: 30,
    });
    expect(env).toEqual({
      TARGET: "http://127.0.0.1:8080",
      VUS: "10",
      DURATION: "70",
      WARMUP: "5",
      MCP_PATH: "/mcp",
      LEVELS: "10,100",
      STREAM: "legacy-sse",
      RAMP: "30",
    });
    const read = new Set(
      [...script.matchAll(/__ENV\.([A-Z_]+)|positiveInt\("([A-Z_]+)"|nonNegativeInt\("([A-Z_]+)"/g)].map(
        (m) => m[1] ?? m[2] ?? m[3],
      ),
    );
    for (const name of [...Object.keys(env), "RATE", "MAX_VUS", "GAP", "SSE_PATH", "SUMMARY_PATH"]) {
      expect(read, name).toContain(name);
    }
  });

  it("opens streams at a rate instead of over a ramp in the open model", () => {
    const { vus: _vus, ...open } = base;
    const env = connectionStormEnv({ ...open, rate: 400, maxVus: 50 });
    expect(env).toMatchObject({ RATE: "400", MAX_VUS: "50", STREAM: "streamable" });
    expect(env).not.toHaveProperty("RAMP");
    expect(connectionStormEnv(base)).toMatchObject({ RAMP: "2" });
    expect(fields({ ...open, rate: 400, rampSec: 5 })).toEqual([
      "rampSec: a rate sets the ramp; give one or the other",
    ]);
  });

  it("needs a duration that gives each level its ramp, a second held and its close", () => {
    // Two levels: 2 s ramps, 1 s held, 2 s to close each.
    expect(fields({ ...base, durationSec: 10 })).toEqual([]);
    expect(fields({ ...base, durationSec: 9 })).toEqual([
      "durationSec: must be at least 10 seconds for these levels (each ramps, is held a second, and closes)",
    ]);
    // At 100 streams a second, 10,000 take 100 s to open.
    const { vus: _vus, ...open } = base;
    expect(fields({ ...open, rate: 100, levels: [10000], durationSec: 100 })[0]).toMatch(
      /at least 103 seconds/,
    );
    // The script divides the duration the same way: the levels are held equally long and end in it.
    const plan = stormPlan({
      levels: [10, 100],
      rate: 0,
      ramp: 2,
      duration: 20,
      warmup: 5,
      gap: 2,
      pool: 50,
    });
    expect(plan).toEqual([
      { level: 10, vus: 10, startSec: 5, holdFromSec: 7, holdToSec: 13 },
      { level: 100, vus: 50, startSec: 15, holdFromSec: 17, holdToSec: 23 },
    ]);
    expect(() =>
      stormPlan({ levels: [10, 100], rate: 0, ramp: 2, duration: 9, warmup: 0, gap: 2, pool: 5 }),
    ).toThrow(/DURATION must be at least 10 s/);
  });

  it("takes levels as a list or as the form's text, rising, up to 10,000 streams", () => {
    expect(ZConnectionStormParams.parse({ levels: "10, 100,1000" }).levels).toEqual([10, 100, 1000]);
    expect(ZConnectionStormParams.parse({ levels: [10000] }).levels).toEqual([10000]);
    expect(fields({ ...base, levels: [100, 10] })).toEqual(["levels: must rise level by level"]);
    expect(fields({ ...base, levels: [10, 20000] })).toEqual([
      "levels.1: must list at most 10000 streams a level",
    ]);
    expect(fields({ ...base, levels: "10,x" })).toEqual(["levels.1: must list numbers"]);
    expect(fields({ ...base, levels: [] })).toEqual(["levels: must list at least one level"]);
    expect(fields({ ...base, levels: [0] })).toEqual(["levels.0: must list at least 1 stream a level"]);
    expect(fields({ ...base, stream: "websocket" })).toEqual([
      'stream: must be "streamable" or "legacy-sse"',
    ]);
    expect(fields({ ...base, rampSec: 0 })).toEqual(["rampSec: must be at least 1 second"]);
    expect(fields({ ...base, tool: "echo" })[0]).toMatch(/^: /);
  });

  it("counts streams per level and holds them through the compiled-in SSE module, not a VU each", () => {
    expect(script).toContain('from "k6/x/perflab-sse"');
    for (const metric of ["storm_established", "storm_failed", "storm_dropped", "storm_silent"]) {
      expect(script).toContain(`\`${metric}{level:\${level}}\``);
    }
    expect(script).toContain('executor: "per-vu-iterations"');
    expect(script).toMatch(/STREAM must be "streamable" or "legacy-sse"/);
  });
});
