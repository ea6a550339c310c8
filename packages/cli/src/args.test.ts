import { describe, expect, it } from "vitest";
import { countsFromK6Summary, parseCommand, UsageError } from "./args.ts";
import { run } from "./main.ts";

describe("perflab run", () => {
  it("builds the matrix spec the API takes, closed or open model", () => {
    const closed = parseCommand(
      [
        "run",
        "--server",
        "go",
        "--server",
        "node",
        "--tool",
        "echo",
        "--args",
        '{"message":"hi"}',
        "--vus",
        "10,50",
      ].concat([
        "--duration",
        "30",
        "--warmup",
        "5",
        "--rounds",
        "3",
        "--baseline",
        "base1",
        "--tolerance",
        "5",
      ]),
      {},
    );
    expect(closed).toMatchObject({
      command: "run",
      wait: true,
      tolerance: 5,
      global: { url: "http://127.0.0.1:3000", json: false },
      spec: {
        servers: ["go", "node"],
        scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } }],
        loadLevels: [{ vus: 10 }, { vus: 50 }],
        durationSec: 30,
        warmupSec: 5,
        rounds: 3,
        baselineRunId: "base1",
      },
    });
    const open = parseCommand(
      [
        "run",
        "--server",
        "go",
        "--tool",
        "echo",
        "--rate",
        "100 500",
        "--max-vus",
        "40",
        "--duration",
        "60",
      ].concat(["--session", "per-call", "--no-wait", "--url", "http://lab:3000/"]),
      {},
    );
    expect(open).toMatchObject({
      wait: false,
      global: { url: "http://lab:3000" },
      spec: {
        loadLevels: [
          { rate: 100, maxVus: 40 },
          { rate: 500, maxVus: 40 },
        ],
        scenarios: [{ params: { tool: "echo", session: "per-call" } }],
      },
    });
    expect((open as { spec: object }).spec).not.toHaveProperty("baselineRunId");
    const held = parseCommand(
      ["run", "--server", "go", "--tool", "echo", "--vus", "20", "--duration", "30"].concat([
        "--sessions-per-vu",
        "50",
        "--think-ms",
        "1000",
      ]),
      {},
    );
    expect(held).toMatchObject({
      spec: { scenarios: [{ params: { tool: "echo", sessionsPerVu: 50, thinkMs: 1000 } }] },
    });
  });

  it("takes git fields from GitHub Actions' environment unless flags give them, and the URL from PERFLAB_URL", () => {
    const env = {
      GITHUB_REPOSITORY: "acme/mcp",
      GITHUB_HEAD_REF: "feature",
      GITHUB_REF_NAME: "42/merge",
      GITHUB_SHA: "abc123",
      GITHUB_REF: "refs/pull/42/merge",
      PERFLAB_URL: "http://perflab:3000",
    };
    const parsed = parseCommand(
      ["run", "--server", "go", "--vus", "1", "--duration", "5", "--git-commit", "def"],
      env,
    );
    expect(parsed).toMatchObject({
      global: { url: "http://perflab:3000" },
      spec: { git: { repo: "acme/mcp", branch: "feature", commit: "def", pr: "42" } },
    });
    const upload = parseCommand(["upload", "out.ndjson", "--server", "go", "--duration", "30"], env);
    expect(upload).toMatchObject({
      file: "out.ndjson",
      query: {
        server: "go",
        durationSec: "30",
        gitRepo: "acme/mcp",
        gitBranch: "feature",
        gitCommit: "abc123",
        gitPr: "42",
      },
    });
  });

  it("refuses what it can tell is wrong before sending anything", () => {
    const refuse = (argv: string[]) => expect(() => parseCommand(argv, {})).toThrow(UsageError);
    refuse(["launch"]);
    refuse(["run", "--server", "go", "--duration", "5"]);
    refuse(["run", "--server", "go", "--vus", "5", "--rate", "5", "--duration", "5"]);
    refuse(["run", "--server", "go", "--vus", "ten", "--duration", "5"]);
    refuse(["run", "--server", "go", "--vus", "1", "--args", "{oops", "--duration", "5"]);
    refuse(["run", "--server", "go", "--vus", "1", "--duration", "5", "--colour", "red"]);
    refuse(["run", "--server", "go", "--vus", "1", "--duration", "5", "--sessions-per-vu", "many"]);
    refuse(["upload"]);
    refuse(["verdict"]);
    refuse(["verdict", "a", "b"]);
    expect(() => parseCommand(["run", "--vus", "1", "--tolerance", "x"], {})).toThrow(
      /--tolerance must be a number/,
    );
  });
});

describe("k6's summary", () => {
  it("gives the measured request count and the whole test's dropped calls, and nothing it does not hold", () => {
    const summary = {
      metrics: {
        "http_reqs{phase:measure}": { values: { count: 1234, rate: 41.1 } },
        dropped_iterations: { values: { count: 7 } },
      },
    };
    expect(countsFromK6Summary(summary)).toEqual({ k6Requests: "1234", droppedCalls: "7" });
    expect(countsFromK6Summary({ metrics: {} })).toEqual({});
    expect(countsFromK6Summary(null)).toEqual({});
  });
});

describe("the API token", () => {
  it("comes from --token, else PERFLAB_TOKEN, and is absent when neither is set", () => {
    const argv = ["verdict", "r1"];
    expect(parseCommand(argv, {})).toMatchObject({ global: { url: "http://127.0.0.1:3000" } });
    expect((parseCommand(argv, {}) as { global: object }).global).not.toHaveProperty("token");
    expect(parseCommand(argv, { PERFLAB_TOKEN: "plab_env" })).toMatchObject({
      global: { token: "plab_env" },
    });
    expect(parseCommand([...argv, "--token", "plab_flag"], { PERFLAB_TOKEN: "plab_env" })).toMatchObject({
      global: { token: "plab_flag" },
    });
    // An empty variable (a CI secret that is not set) is no token rather than an empty one.
    expect((parseCommand(argv, { PERFLAB_TOKEN: "" }) as { global: object }).global).not.toHaveProperty(
      "token",
    );
  });
});

describe("the command", () => {
  it("prints help with exit 0, and a usage error with exit 2", async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    expect(await run(["help", "verdict"], io, {})).toBe(0);
    expect(lines.join("\n")).toMatch(/usage: perflab verdict <run id>/);
    lines.length = 0;
    expect(await run(["verdict"], io, {})).toBe(2);
    expect(lines[0]).toBe("perflab: verdict needs the run id");
  });

  it("says where perflab could not be reached, with exit 2", async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    // Port 9 (discard) on loopback: nothing listens there.
    expect(await run(["verdict", "r1", "--url", "http://127.0.0.1:9"], io, {})).toBe(2);
    expect(lines.join("\n")).toMatch(/perflab at http:\/\/127\.0\.0\.1:9 could not be reached/);
  });
});
