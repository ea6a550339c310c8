import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { type DriverId, scenarioModules, studies } from "@perflab/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countsFromK6Summary, parseCommand, UsageError, usage } from "./args.ts";
import { run } from "./main.ts";
import { matrixEstimate, roughDuration, studyListing } from "./study.ts";

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

  it("sends --timeout-ms as the spec's timeoutMs, absent unless given, and lists it in the help", () => {
    const closed = ["run", "--server", "go", "--vus", "10", "--duration", "5"];
    expect(parseCommand([...closed, "--timeout-ms", "2000"], {})).toMatchObject({
      spec: { timeoutMs: 2000 },
    });
    expect((parseCommand(closed, {}) as { spec: object }).spec).not.toHaveProperty("timeoutMs");
    expect(() => parseCommand([...closed, "--timeout-ms", "soon"], {})).toThrow(
      /--timeout-ms must be a number, got "soon"/,
    );
    expect(usage.run).toContain("--timeout-ms <ms>");
  });

  it("runs a route on http-route unless --scenario names another, as upload does", () => {
    const closed = ["run", "--server", "go", "--vus", "10", "--duration", "5"];
    expect(parseCommand([...closed, "--route", "/rest/time"], {})).toMatchObject({
      spec: { scenarios: [{ id: "http-route", params: { route: "/rest/time" } }] },
    });
    expect(parseCommand([...closed, "--tool", "echo"], {})).toMatchObject({
      spec: { scenarios: [{ id: "mcp-tool-call", params: { tool: "echo" } }] },
    });
    expect(parseCommand([...closed, "--scenario", "other", "--route", "/x"], {})).toMatchObject({
      spec: { scenarios: [{ id: "other" }] },
    });
  });

  it("maps every scenario's flags into parameters its schema accepts, and lists them in the help", () => {
    for (const module of scenarioModules) {
      const defaults = module.defaultParams as Record<string, unknown>;
      const flags = module.cli.filter((f) => defaults[f.param] !== undefined);
      const argv = flags.flatMap((f) => {
        const value = defaults[f.param];
        return [`--${f.flag}`, f.value === "json" ? JSON.stringify(value) : String(value)];
      });
      const parsed: unknown = parseCommand(
        ["run", "--server", "go", "--vus", "1", "--duration", "5", "--scenario", module.id, ...argv],
        {},
      );
      const [scenario] = (parsed as { spec: { scenarios: { id: string; params: unknown }[] } }).spec
        .scenarios;
      expect(scenario?.id).toBe(module.id);
      expect(module.params.parse(scenario?.params)).toEqual(module.params.parse(defaults));
      for (const f of module.cli) {
        if (f.help?.run) expect(usage.run).toContain(f.help.run.synopsis);
        if (f.help?.upload) expect(usage.upload).toContain(f.help.upload.synopsis);
      }
    }
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

  it("sends an upload's --format as the query's format (the lab checks the file against it)", () => {
    const parsed = parseCommand(
      ["upload", "out.json.gz", "--server", "go", "--duration", "30", "--format", "k6-json"],
      {},
    );
    expect(parsed).toMatchObject({ file: "out.json.gz", query: { format: "k6-json" } });
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

  it("refuses flags it would otherwise drop: --max-vus without --rate, --tolerance with no verdict", () => {
    const refuse = (argv: string[], message: RegExp) => expect(() => parseCommand(argv, {})).toThrow(message);
    const closed = ["run", "--server", "go", "--vus", "10", "--duration", "5"];
    refuse([...closed, "--max-vus", "50"], /--max-vus .* give it with --rate, not --vus/);
    refuse([...closed, "--tolerance", "5"], /--tolerance needs --baseline <run id>/);
    refuse([...closed, "--baseline", "b1", "--tolerance", "5", "--no-wait"], /--tolerance with --no-wait/);
    refuse(["upload", "out.ndjson", "--server", "go", "--tolerance", "5"], /--tolerance needs --baseline/);
    refuse(["study", "soak", "--tolerance", "5"], /--tolerance needs --baseline/);
    refuse(
      ["study", "soak", "--baseline", "b1", "--tolerance", "5", "--no-wait"],
      /--tolerance with --no-wait/,
    );
    refuse(["export", "r1", "--json"], /export prints CSV, not JSON: leave out --json/);
    refuse(
      [...closed.slice(0, 3), "--vus", " , ", "--duration", "5"],
      /--vus needs at least one load level, got " , "/,
    );
    refuse(
      [...closed.slice(0, 3), "--rate", "", "--duration", "5"],
      /--rate needs at least one load level, got ""/,
    );
    // The verdict itself takes a tolerance without a baseline: the run's own baseline is judged.
    expect(parseCommand(["verdict", "r1", "--tolerance", "5"], {})).toMatchObject({ tolerance: 5 });
  });
});

describe("perflab study", () => {
  it("parses a study to queue, published unless --quick, with what to change of it", () => {
    expect(parseCommand(["study", "trivial-route"], {})).toMatchObject({
      command: "study",
      study: { id: "trivial-route" },
      variant: "published",
      wait: true,
    });
    const parsed = parseCommand(
      ["study", "io-tools", "--quick", "--server", "go", "--server", "node", "--driver", "local"].concat([
        "--name",
        "nightly",
        "--baseline",
        "base1",
        "--tolerance",
        "5",
        "--json",
      ]),
      {},
    );
    expect(parsed).toMatchObject({
      command: "study",
      study: { id: "io-tools" },
      variant: "quick",
      servers: ["go", "node"],
      driver: "local",
      name: "nightly",
      baseline: "base1",
      tolerance: 5,
      wait: true,
      global: { json: true },
    });
    expect(parseCommand(["study", "soak", "--no-wait"], {})).toMatchObject({ wait: false });
    // Nothing given is nothing changed: the spec keeps the study's own.
    for (const key of ["servers", "driver", "name", "baseline", "tolerance"])
      expect(parseCommand(["study", "soak"], {})).not.toHaveProperty(key);
  });

  it("lists the studies with no id or with --list", () => {
    expect(parseCommand(["study"], {})).toMatchObject({ command: "study", study: null });
    expect(parseCommand(["study", "--list", "--json"], {})).toMatchObject({
      command: "study",
      study: null,
      global: { json: true },
    });
  });

  it("refuses an unknown study naming the studies, and flags it does not take", () => {
    expect(() => parseCommand(["study", "nope"], {})).toThrow(UsageError);
    expect(() => parseCommand(["study", "nope"], {})).toThrow(
      `unknown study "nope"; the studies: ${studies.map((s) => s.id).join(", ")}`,
    );
    const refuse = (argv: string[], message: RegExp) => expect(() => parseCommand(argv, {})).toThrow(message);
    refuse(["study", "soak", "--colour", "red"], /Unknown option '--colour'/);
    refuse(["study", "soak", "--vus", "10"], /Unknown option '--vus'/);
    refuse(["study", "soak", "--driver", "k8s"], /--driver must be local or docker, got "k8s"/);
    refuse(["study", "soak", "four-tools"], /one study id, got also "four-tools"/);
    refuse(["study", "soak", "--list"], /a study id or --list, not both/);
    refuse(["study", "--quick"], /--quick needs a study id/);
    refuse(["study", "--server", "go"], /--server needs a study id/);
    refuse(["study", "soak", "--tolerance", "lots"], /--tolerance must be a number/);
  });

  it("makes the rounds adaptive with --max-rounds, --rounds the minimum and --max-minutes the budget", () => {
    const base = ["run", "--server", "go", "--server", "python", "--vus", "10", "--duration", "3"];
    expect(
      parseCommand([...base, "--rounds", "3", "--max-rounds", "8", "--max-minutes", "45"], {}),
    ).toMatchObject({
      spec: { rounds: 3, adaptive: { maxRounds: 8, maxMinutes: 45 } },
    });
    const fixed = parseCommand([...base, "--rounds", "3"], {});
    expect(fixed.command === "run" && fixed.spec).not.toHaveProperty("adaptive");
    expect(() => parseCommand([...base, "--max-minutes", "45"], {})).toThrow(
      /--max-minutes bounds adaptive rounds: give it with --max-rounds/,
    );
    expect(() => parseCommand([...base, "--max-rounds", "many"], {})).toThrow(
      /--max-rounds must be a number/,
    );
    expect(usage.run).toMatch(/--max-rounds <n> {8}adaptive rounds/);
  });

  it("estimates a matrix's cells and time, and each study's as published and quick", () => {
    const spec = {
      servers: ["go", "node"],
      scenarios: [{ id: "http-route" }],
      loadLevels: [{ vus: 10 }, { vus: 100 }],
      durationSec: 10,
      warmupSec: 3,
    };
    // 2 × 1 × 2 × 1 cells of 3 + 10 + 2 (the default cool-down) + 3 s.
    expect(matrixEstimate(spec)).toEqual({ cells: 4, seconds: 72 });
    expect(matrixEstimate({ ...spec, rounds: 3, cooldownSec: 0 })).toEqual({ cells: 12, seconds: 192 });
    expect([45, 600, 9_000, 172_930].map(roughDuration)).toEqual(["45 s", "10 min", "2.5 h", "48 h"]);
    const trivial = studyListing().find((s) => s.id === "trivial-route")!;
    expect(trivial.variants).toEqual({
      published: { cells: 8, seconds: 8 * (5 + 30 + 2 + 3) },
      quick: { cells: 4, seconds: 4 * (3 + 10 + 2 + 3) },
    });
    expect(studyListing().map((s) => s.id)).toEqual(studies.map((s) => s.id));
  });
});

describe("perflab study against a lab", () => {
  /** A stand-in for the lab's API: its servers, the matrices posted to it, runs that end at once. */
  const posted: Record<string, unknown>[] = [];
  let labServers = ["go", "node:cluster", "python"];
  /** The lab's default driver (PERFLAB_DEFAULT_DRIVER); undefined: a lab that does not say. */
  let labDriver: DriverId | undefined;
  /** The lab's workers (GET /api/v1/workers); null: a lab without the endpoint (404). */
  let labWorkers: { docker: { reachable: boolean; error: string | null } }[] | null = null;
  /** What every run's detail says it is: "running" keeps a waiting command waiting. */
  let runStatus = "succeeded";
  let url = "";
  const lab = createServer((request: IncomingMessage, response: ServerResponse) => {
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method === "GET" && request.url === "/api/v1/workers" && labWorkers !== null)
      return json(200, { workers: labWorkers });
    if (request.method === "GET" && request.url === "/api/v1/servers")
      return json(200, { servers: labServers.map((name) => ({ name })), defaultDriver: labDriver });
    if (request.method === "POST" && request.url === "/api/v1/matrices") {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        posted.push(JSON.parse(body) as Record<string, unknown>);
        json(201, { runId: `run${posted.length}` });
      });
      return;
    }
    const detail = /^\/api\/v1\/runs\/(run\d+)$/.exec(request.url ?? "");
    if (detail) {
      const spec = posted[Number(detail[1]!.slice(3)) - 1]!;
      const servers = spec.servers as string[];
      const scenarios = spec.scenarios as { id: string; params: Record<string, unknown> }[];
      const cells = scenarios.flatMap((scenario) =>
        servers.map((serverName) => ({ serverName, scenario: scenario.id, params: scenario.params })),
      );
      return json(200, {
        run: {
          id: detail[1],
          status: runStatus,
          cellsDone: runStatus === "succeeded" ? cells.length : 0,
          cellsTotal: cells.length,
        },
        cells: cells.map((cell, index) => ({
          index,
          ...cell,
          vus: 10,
          rate: null,
          round: 1,
          status: "succeeded",
          summary: null,
          error: null,
        })),
      });
    }
    json(404, { title: "Not Found" });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => lab.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(lab.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => lab.close(() => resolve())));

  const perflab = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run([...argv, "--url", url], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
    return { code, out: out.join("\n"), err: err.join("\n") };
  };

  it("queues the study's matrix of the servers the lab has, naming those it lacks", async () => {
    labServers = ["go", "node:cluster", "python"];
    const result = await perflab("study", "trivial-route", "--quick", "--no-wait");
    expect(result.code, result.err).toBe(0);
    expect(result.out).toBe(`run${posted.length}`);
    expect(result.err).toMatch(
      /trivial-route is queued without this row:\n {2}Node \(node\): this lab has no server node\n/,
    );
    expect(result.err).toMatch(/trivial-route --quick: go · 2 cells, about 36 s/);
    expect(posted.at(-1)).toEqual({
      name: "A trivial HTTP route as connections grow (quick)",
      servers: ["go"],
      scenarios: [{ id: "http-route", params: { route: "/rest/time" } }],
      loadLevels: [{ vus: 10 }, { vus: 100 }],
      durationSec: 10,
      warmupSec: 3,
      rounds: 1,
      driver: "local",
      cooldownSec: 2,
      study: { id: "trivial-route", variant: "quick" },
    });
  });

  it("runs a quick study on the lab's default driver, and --driver still chooses", async () => {
    labServers = ["go", "node"];
    labDriver = "docker";
    try {
      expect((await perflab("study", "trivial-route", "--quick", "--no-wait")).code).toBe(0);
      expect(posted.at(-1)).toMatchObject({ servers: ["node", "go"], driver: "docker" });
      const local = await perflab("study", "trivial-route", "--quick", "--driver", "local", "--no-wait");
      expect(local.code).toBe(0);
      expect(posted.at(-1)).toMatchObject({ driver: "local" });
      // The published variant keeps the study's own driver whatever the lab's default.
      labDriver = "local";
      expect((await perflab("study", "io-tools", "--no-wait")).code).toBe(0);
      expect(posted.at(-1)).toMatchObject({ driver: "docker" });
    } finally {
      labDriver = undefined;
    }
  });

  it("keeps --server to the study's servers the lab has, naming them", async () => {
    labServers = ["go", "node", "java", "python", "rust", "bun"];
    const before = posted.length;
    const other = await perflab("study", "trivial-route", "--server", "go", "--server", "python");
    expect(other.code).toBe(2);
    expect(other.err).toMatch(
      /--server python: not among trivial-route's servers that this lab has \(node, go\)/,
    );
    labServers = ["python"];
    const none = await perflab("study", "trivial-route");
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/the lab has none of trivial-route's servers \(node, go\)/);
    expect(posted.length).toBe(before);
  });

  it("waits and prints the cells as run does; --driver, --name and --baseline change the spec", async () => {
    labServers = ["go", "node", "java", "python", "rust", "bun"];
    // The published io-tools runs in containers with limits, which a local run leaves out.
    const local = await perflab(
      ...["study", "io-tools", "--server", "node", "--server", "go", "--driver", "local"],
      ...["--name", "io nightly", "--no-wait"],
    );
    expect(local.code, local.err).toBe(0);
    expect(local.err).toMatch(/--driver local leaves them out/);
    expect(local.err).not.toMatch(/the lab has no/);
    expect(posted.at(-1)).toMatchObject({ name: "io nightly", servers: ["go", "node"], driver: "local" });
    expect(posted.at(-1)).not.toHaveProperty("limits");
    const docker = await perflab("study", "io-tools", "--server", "go", "--no-wait");
    expect(docker.code, docker.err).toBe(0);
    expect(posted.at(-1)).toMatchObject({ driver: "docker", limits: { cpus: 2, memoryMb: 2048 } });
    const adaptive = ["--rounds", "2", "--max-rounds", "6", "--max-minutes", "30", "--no-wait"];
    expect((await perflab("study", "io-tools", "--quick", "--server", "go", ...adaptive)).code).toBe(0);
    expect(posted.at(-1)).toMatchObject({ rounds: 2, adaptive: { maxRounds: 6, maxMinutes: 30 } });
    // The flags' rule replaces a study's own; --rounds alone keeps it, as its minimum.
    expect((await perflab("study", "payload-sweep", "--max-rounds", "5", "--no-wait")).code).toBe(0);
    expect(posted.at(-1)).toMatchObject({ rounds: 3, adaptive: { maxRounds: 5 } });
    expect((await perflab("study", "payload-sweep", "--rounds", "4", "--no-wait")).code).toBe(0);
    expect(posted.at(-1)).toMatchObject({ rounds: 4, adaptive: { maxRounds: 8 } });

    const waited = await perflab("study", "trivial-route", "--quick", "--server", "go");
    expect(waited.code, waited.err).toBe(0);
    expect(waited.err).toMatch(/queued run run\d+: /);
    expect(waited.err).toMatch(/1\/1 cells done \(succeeded\)/);
    expect(waited.out).toMatch(/run run\d+ succeeded/);
    expect(waited.out).toMatch(/0\s+go\s+10 VUs\s+1\s+succeeded/);
    // Several workloads: each row says which it ran.
    const sweep = await perflab("study", "payload-sweep", "--quick", "--server", "go");
    expect(sweep.code, sweep.err).toBe(0);
    expect(sweep.out).toMatch(/#\s+server\s+workload\s+load/);
    expect(sweep.out).toMatch(/3\s+go\s+echo \(pad_to_bytes 1048576\)\s+10 VUs/);
  });

  it("stops waiting on Ctrl-C or SIGTERM with exit 130, naming the run that goes on, even with --json", async () => {
    labServers = ["go", "node"];
    runStatus = "running";
    try {
      for (const [signal, json] of [
        ["SIGINT", []],
        ["SIGTERM", ["--json"]],
      ] as const) {
        const waiting = perflab("study", "trivial-route", "--quick", "--server", "go", ...json);
        await new Promise((resolve) => setTimeout(resolve, 300));
        process.emit(signal);
        const stopped = await waiting;
        expect(stopped.code, stopped.err).toBe(130);
        expect(stopped.err).toMatch(
          new RegExp(
            `perflab: stopped waiting; run run${posted.length} goes on at ${url}/runs/run${posted.length} \\(cancel it there, or POST /api/v1/runs/run${posted.length}/cancel\\)$`,
          ),
        );
        expect(stopped.out).toBe("");
        expect(process.listenerCount(signal)).toBe(0);
      }
    } finally {
      runStatus = "succeeded";
    }
  });

  it("warns when no worker runs, or when docker is chosen and no worker reaches an engine", async () => {
    labServers = ["go", "node"];
    try {
      labWorkers = [];
      const idle = await perflab("study", "trivial-route", "--quick", "--no-wait");
      expect(idle.code, idle.err).toBe(0);
      expect(idle.err).toMatch(
        /no worker is running on this lab: the run waits in the queue until one starts/,
      );
      labWorkers = [{ docker: { reachable: false, error: "connect ENOENT /var/run/docker.sock" } }];
      const docker = await perflab("study", "trivial-route", "--quick", "--driver", "docker", "--no-wait");
      expect(docker.err).toMatch(
        /no running worker reaches a Docker engine \(connect ENOENT \/var\/run\/docker\.sock\): docker cells would fail/,
      );
      const local = await perflab("study", "trivial-route", "--quick", "--no-wait");
      expect(local.err).not.toMatch(/worker/);
    } finally {
      labWorkers = null;
    }
  });

  it("lists the studies without asking the lab", async () => {
    const listed = await perflab("study");
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/trivial-route\s+8 cells, ~5 min\s+4 cells, ~72 s\s+A trivial HTTP route/);
    expect(listed.out).toMatch(/^Node vs Go performance comparison · node, go$/m);
    const json = JSON.parse((await perflab("study", "--list", "--json")).out) as {
      studies: { id: string }[];
    };
    expect(json.studies.map((s) => s.id)).toEqual(studies.map((s) => s.id));
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
    lines.length = 0;
    expect(await run(["help", "verdcit"], io, {})).toBe(2);
    expect(lines[0]).toBe(
      'perflab: no help on "verdcit": the commands are run, upload, study, verdict, export, report, script, servers',
    );
  });

  it("sends a request that creates with one Idempotency-Key, and asks again on a 5xx or a 409 naming it", async () => {
    const keys: (string | undefined)[] = [];
    const lab = createServer((request: IncomingMessage, response: ServerResponse) => {
      keys.push(request.headers["idempotency-key"] as string | undefined);
      request.resume();
      const problem = (status: number, field: string) => {
        response.writeHead(status, { "content-type": "application/problem+json" });
        response.end(JSON.stringify({ status, detail: "not yet", errors: [{ field, message: "later" }] }));
      };
      if (keys.length === 1) return problem(503, "(lab)");
      if (keys.length === 2) return problem(409, "idempotency-key");
      response.writeHead(201, { "content-type": "application/json" });
      response.end(JSON.stringify({ slug: "s1", url: "http://lab/r/s1" }));
    });
    await new Promise<void>((resolve) => lab.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(lab.address() as AddressInfo).port}`;
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    try {
      expect(await run(["report", "r1", "--url", url], io, { PERFLAB_RETRY: "30" })).toBe(0);
    } finally {
      lab.close();
    }
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(lines.at(-1)).toBe("http://lab/r/s1");
  }, 20_000);

  it("says where perflab could not be reached, with exit 2", async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    // Port 9 (discard) on loopback: nothing listens there.
    expect(await run(["verdict", "r1", "--url", "http://127.0.0.1:9"], io, { PERFLAB_RETRY: "0" })).toBe(2);
    expect(lines.join("\n")).toMatch(/^perflab: perflab at http:\/\/127\.0\.0\.1:9 could not be reached/);
  });

  it("asks an unreachable lab again for a read, for PERFLAB_RETRY seconds, then gives up saying how long", async () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const started = Date.now();
    expect(await run(["export", "r1", "--url", "http://127.0.0.1:9"], io, { PERFLAB_RETRY: "3" })).toBe(2);
    // Asked at 0, 2 and 4 s: the third failure is past the 3 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/could not be reached: .*; asking again for up to 3 s \(PERFLAB_RETRY\)$/);
    expect(lines[1]).toMatch(/could not be reached: .*\n {2}the lab did not answer for 4 s$/);
  }, 15_000);

  it("reads PERFLAB_RETRY as seconds, 0 or more, 120 when unset", () => {
    expect(parseCommand(["verdict", "r1"], {})).toMatchObject({ global: { retrySec: 120 } });
    expect(parseCommand(["verdict", "r1"], { PERFLAB_RETRY: "0" })).toMatchObject({
      global: { retrySec: 0 },
    });
    expect(parseCommand(["verdict", "r1"], { PERFLAB_RETRY: "7.5" })).toMatchObject({
      global: { retrySec: 7.5 },
    });
    for (const bad of ["-1", "soon", "Infinity", " "]) {
      expect(() => parseCommand(["verdict", "r1"], { PERFLAB_RETRY: bad }), bad).toThrow(
        `PERFLAB_RETRY must be a number of seconds, 0 or more, got "${bad}"`,
      );
    }
  });

  it("gives up on a lab that takes the connection and never answers, after PERFLAB_TIMEOUT seconds", async () => {
    const silent = createNetServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    try {
      const started = Date.now();
      const env = { PERFLAB_TIMEOUT: "0.3", PERFLAB_RETRY: "0" };
      expect(await run(["verdict", "r1", "--url", url], io, env)).toBe(2);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(lines.join("\n")).toBe(
        `perflab: perflab at ${url} did not answer GET /api/v1/runs/r1/verdict within 0.3 s (PERFLAB_TIMEOUT)`,
      );
      lines.length = 0;
      expect(await run(["export", "r1", "--url", url], io, env)).toBe(2);
      expect(lines.join("\n")).toMatch(/did not answer GET \/api\/v1\/runs\/r1\/cells\.csv within 0\.3 s/);
    } finally {
      silent.close();
    }
    expect(() => parseCommand(["verdict", "r1"], { PERFLAB_TIMEOUT: "soon" })).toThrow(
      'PERFLAB_TIMEOUT must be a number of seconds above 0, got "soon"',
    );
    expect(parseCommand(["verdict", "r1"], {})).toMatchObject({ global: { timeoutSec: 30 } });
  });
});

describe("perflab script", () => {
  it("adds a file under its own name or --name, lists, and removes by name or id", () => {
    expect(parseCommand(["script", "add", "load.js"], {})).toMatchObject({
      command: "script",
      action: { action: "add", file: "load.js" },
    });
    expect(parseCommand(["script", "add", "load.js", "--name", "mine"], {})).toMatchObject({
      action: { action: "add", file: "load.js", name: "mine" },
    });
    expect(parseCommand(["script", "list"], {})).toMatchObject({ action: { action: "list" } });
    expect(parseCommand(["script", "rm", "mine"], {})).toMatchObject({
      action: { action: "rm", script: "mine" },
    });
    for (const argv of [
      ["script"],
      ["script", "add"],
      ["script", "rm"],
      ["script", "list", "x"],
      ["script", "nope"],
    ]) {
      expect(() => parseCommand(argv, {}), argv.join(" ")).toThrow(UsageError);
    }
  });

  it("runs a stored script as the k6-script scenario with run --script", () => {
    const parsed = parseCommand(
      ["run", "--server", "go", "--script", "mine", "--vus", "2", "--duration", "5"],
      {},
    );
    expect(parsed).toMatchObject({
      spec: { scenarios: [{ id: "k6-script", params: { scriptId: "mine" } }] },
    });
  });
});
