import { parseArgs } from "node:util";
import {
  type CliFlag,
  defaultScenarioId,
  driverIds,
  findStudy,
  type Study,
  type StudyVariant,
  studies,
} from "@perflab/contracts";
import {
  pickedScenario,
  scenarioHelp,
  scenarioOptions,
  scenarioParams,
  scenarioPicks,
  uploadCall,
} from "./scenario-flags.ts";
import { parseScriptAction, type ScriptAction } from "./script-command.ts";
import { parseServersAction, type ServersAction } from "./servers-command.ts";

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export const DEFAULT_URL = "http://127.0.0.1:3000";

const common = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

const git = {
  "git-repo": { type: "string" },
  "git-branch": { type: "string" },
  "git-commit": { type: "string" },
  "git-pr": { type: "string" },
} as const;

/** What was (or is to be) measured, and against what: the flags `run` and `upload` share. */
const measured = {
  vus: { type: "string" },
  rate: { type: "string" },
  "max-vus": { type: "string" },
  duration: { type: "string" },
  warmup: { type: "string" },
  driver: { type: "string" },
  name: { type: "string" },
  baseline: { type: "string" },
  tolerance: { type: "string" },
} as const;

const options = {
  run: {
    ...common,
    ...git,
    ...measured,
    ...scenarioOptions("run"),
    server: { type: "string", multiple: true },
    scenario: { type: "string" },
    rounds: { type: "string" },
    "max-rounds": { type: "string" },
    "max-minutes": { type: "string" },
    cooldown: { type: "string" },
    cpus: { type: "string" },
    "memory-mb": { type: "string" },
    "no-wait": { type: "boolean", default: false },
  },
  upload: {
    ...common,
    ...git,
    ...measured,
    ...scenarioOptions("upload"),
    server: { type: "string" },
    summary: { type: "string" },
    scenario: { type: "string" },
    format: { type: "string" },
  },
  study: {
    ...common,
    list: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    server: { type: "string", multiple: true },
    with: { type: "string", multiple: true },
    driver: { type: "string" },
    name: { type: "string" },
    baseline: { type: "string" },
    tolerance: { type: "string" },
    "no-wait": { type: "boolean", default: false },
  },
  verdict: { ...common, baseline: { type: "string" }, tolerance: { type: "string" } },
  export: { ...common, report: { type: "boolean", default: false } },
  report: {
    ...common,
    title: { type: "string" },
    description: { type: "string" },
    public: { type: "boolean", default: false },
  },
  script: { ...common, name: { type: "string" } },
  servers: { ...common },
} as const;

export type CommandName = keyof typeof options;
export const commandNames = Object.keys(options) as CommandName[];

type Env = Record<string, string | undefined>;

/** Git fields from the flags, else from GitHub Actions' environment, so a workflow needs none. */
function gitFields(values: Record<string, unknown>, env: Env) {
  const pr = /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? "")?.[1];
  const pick = (flag: string, fallback: string | undefined) =>
    (values[flag] as string | undefined) ?? (fallback || undefined);
  return {
    repo: pick("git-repo", env.GITHUB_REPOSITORY),
    branch: pick("git-branch", env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME),
    commit: pick("git-commit", env.GITHUB_SHA),
    pr: pick("git-pr", pr),
  };
}

const defined = <T extends Record<string, unknown>>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** "10, 50 100" → ["10", "50", "100"]: the API judges each value and names the one it refuses. */
const list = (text: string) => text.split(/[\s,;]+/).filter(Boolean);

/** A flag's number as the API takes it (the API names a bad one; this only catches non-numbers early). */
function num(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n))
    throw new UsageError(`--${flag} must be a number, got "${value}"`);
  return n;
}

/** `--max-rounds` (and `--max-minutes` with it) make the rounds adaptive: `--rounds` is then the minimum. */
function adaptiveRounds(str: (name: string) => string | undefined) {
  const maxRounds = num("max-rounds", str("max-rounds"));
  const maxMinutes = num("max-minutes", str("max-minutes"));
  if (maxRounds === undefined && maxMinutes !== undefined)
    throw new UsageError("--max-minutes bounds adaptive rounds: give it with --max-rounds");
  return maxRounds === undefined ? undefined : defined({ maxRounds, maxMinutes });
}

/** A scenario flag's value as its kind reads: text as given, a number, or JSON. */
function readFlag(flag: CliFlag, text: string): unknown {
  if (flag.value === "number") return num(flag.flag, text);
  if (flag.value === "text") return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--${flag.flag} must be JSON, got ${text}`);
  }
}

/**
 * How long a command rides out a lab that stops answering (a restart of the web app behind a CI
 * job's long run), by default (PERFLAB_RETRY sets it; 0 gives up at once): a wait's failed polls,
 * and reads (the verdict, an export), are asked again every 2 s for this long in a row, then the
 * command gives up (a wait with the run's address). A request that queues, uploads or shares is
 * asked again too, with the Idempotency-Key of its first try, so the lab creates it once.
 */
export const DEFAULT_RETRY_SEC = 120;

/** Seconds a request may take before the command gives up on the lab (PERFLAB_TIMEOUT). */
export const DEFAULT_TIMEOUT_SEC = 30;

export type Global = { url: string; json: boolean; token?: string; timeoutSec: number; retrySec: number };

export type ParsedCommand =
  | { command: "help"; topic: CommandName | null }
  | { command: "run"; global: Global; spec: Record<string, unknown>; wait: boolean; tolerance?: number }
  | {
      command: "upload";
      global: Global;
      file: string;
      query: Record<string, string>;
      summaryFile?: string;
      tolerance?: number;
    }
  | { command: "study"; global: Global; study: null }
  | {
      command: "study";
      global: Global;
      study: Study;
      variant: StudyVariant;
      /** Only these of the study's servers; checked against the lab's once its servers are known. */
      servers?: string[];
      /** Servers queued beside the study's (the workspace's registered ones), checked like `servers`. */
      with?: string[];
      driver?: (typeof driverIds)[number];
      name?: string;
      baseline?: string;
      wait: boolean;
      tolerance?: number;
    }
  | { command: "verdict"; global: Global; runId: string; baseline?: string; tolerance?: number }
  | { command: "report"; global: Global; runId: string; body: Record<string, unknown> }
  | { command: "export"; global: Global; path: string }
  | { command: "script"; global: Global; action: ScriptAction }
  | { command: "servers"; global: Global; action: ServersAction };

/** The command line as requests to perflab's API; nothing is sent here. */
export function parseCommand(argv: string[], env: Env = process.env): ParsedCommand {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = rest[0];
    if (topic !== undefined && !commandNames.includes(topic as CommandName))
      throw new UsageError(`no help on "${topic}": the commands are ${commandNames.join(", ")}`);
    return { command: "help", topic: (topic as CommandName | undefined) ?? null };
  }
  if (!commandNames.includes(name as CommandName)) throw new UsageError(`unknown command "${name}"`);
  const command = name as CommandName;
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: options[command], allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "help", topic: command };
  const timeout = env.PERFLAB_TIMEOUT || undefined;
  const timeoutSec = timeout === undefined ? DEFAULT_TIMEOUT_SEC : Number(timeout);
  if (!(timeoutSec > 0) || !Number.isFinite(timeoutSec))
    throw new UsageError(`PERFLAB_TIMEOUT must be a number of seconds above 0, got "${timeout}"`);
  const retry = env.PERFLAB_RETRY || undefined;
  const retrySec = retry === undefined ? DEFAULT_RETRY_SEC : Number(retry);
  if (!(retrySec >= 0) || !Number.isFinite(retrySec) || retry?.trim() === "")
    throw new UsageError(`PERFLAB_RETRY must be a number of seconds, 0 or more, got "${retry}"`);
  const global: Global = {
    url: ((values.url as string | undefined) ?? env.PERFLAB_URL ?? DEFAULT_URL).replace(/\/+$/, ""),
    json: values.json === true,
    timeoutSec,
    retrySec,
    ...defined({ token: (values.token as string | undefined) ?? (env.PERFLAB_TOKEN || undefined) }),
  };
  const tolerance = num("tolerance", values.tolerance as string | undefined);
  const str = (key: string) => values[key] as string | undefined;
  // The tolerance judges the verdict printed at the end; without a baseline, or without waiting for
  // the end, there is none, and a CI job should not believe it set one.
  const judged = () => {
    if (tolerance === undefined) return;
    if (str("baseline") === undefined)
      throw new UsageError("--tolerance needs --baseline <run id>: it is the verdict's against that run");
    if (values["no-wait"] === true)
      throw new UsageError(
        "--tolerance with --no-wait judges nothing: give it to perflab verdict <run id> once the run ends",
      );
  };

  switch (command) {
    case "run": {
      if (positionals.length > 0) throw new UsageError(`run takes no arguments, got "${positionals[0]}"`);
      judged();
      if (str("vus") !== undefined && str("rate") !== undefined)
        throw new UsageError("give --vus or --rate, not both");
      if (str("vus") === undefined && str("rate") === undefined) throw new UsageError("give --vus or --rate");
      const params = scenarioParams(str, readFlag);
      if (str("max-vus") !== undefined && str("rate") === undefined)
        throw new UsageError(
          "--max-vus is the VU pool of an open-model level: give it with --rate, not --vus",
        );
      const maxVus = num("max-vus", str("max-vus"));
      const model = str("rate") !== undefined ? "rate" : "vus";
      if (list(str(model)!).length === 0)
        throw new UsageError(`--${model} needs at least one load level, got "${str(model)}"`);
      const loadLevels =
        str("rate") !== undefined
          ? list(str("rate")!).map((rate) => defined({ rate: num("rate", rate), maxVus }))
          : list(str("vus")!).map((vus) => ({ vus: num("vus", vus) }));
      const limits = defined({
        cpus: num("cpus", str("cpus")),
        memoryMb: num("memory-mb", str("memory-mb")),
      });
      const gitSpec = defined(gitFields(values, env));
      const spec = defined({
        name: str("name"),
        servers: (values.server as string[] | undefined) ?? [],
        // A route is an http-route's, as for upload; a tool, the default scenario's.
        scenarios: [{ id: str("scenario") ?? pickedScenario(str) ?? defaultScenarioId, params }],
        loadLevels,
        durationSec: num("duration", str("duration")),
        warmupSec: num("warmup", str("warmup")),
        rounds: num("rounds", str("rounds")),
        adaptive: adaptiveRounds(str),
        cooldownSec: num("cooldown", str("cooldown")),
        driver: str("driver"),
        limits: Object.keys(limits).length > 0 ? limits : undefined,
        git: Object.keys(gitSpec).length > 0 ? gitSpec : undefined,
        baselineRunId: str("baseline"),
      });
      return { command, global, spec, wait: values["no-wait"] !== true, ...defined({ tolerance }) };
    }
    case "upload": {
      const [file, ...extra] = positionals;
      if (!file) {
        throw new UsageError(
          "upload needs a k6 result file (--out perflab=<file>, --out json=<file>, --summary-export or handleSummary's JSON)",
        );
      }
      if (extra.length > 0) throw new UsageError(`upload takes one file, got also "${extra[0]}"`);
      judged();
      const g = gitFields(values, env);
      const query = defined({
        server: str("server"),
        durationSec: str("duration"),
        warmupSec: str("warmup"),
        scenario: str("scenario") ?? pickedScenario(str),
        ...uploadCall(str),
        vus: str("vus"),
        rate: str("rate"),
        maxVus: str("max-vus"),
        driver: str("driver"),
        name: str("name"),
        baselineRunId: str("baseline"),
        format: str("format"),
        gitRepo: g.repo,
        gitBranch: g.branch,
        gitCommit: g.commit,
        gitPr: g.pr,
      }) as Record<string, string>;
      return { command, global, file, query, ...defined({ summaryFile: str("summary"), tolerance }) };
    }
    case "study": {
      const [id, ...extra] = positionals;
      if (extra.length > 0) throw new UsageError(`study takes one study id, got also "${extra[0]}"`);
      if (id === undefined || values.list) {
        if (id !== undefined) throw new UsageError("give a study id or --list, not both");
        // The flags of a queued study mean nothing to the list: a forgotten id, not a list wanted.
        const queueing = [
          "quick",
          "server",
          "with",
          "driver",
          "name",
          "baseline",
          "tolerance",
          "no-wait",
        ].find((flag) => values[flag] !== undefined && values[flag] !== false);
        if (queueing)
          throw new UsageError(`--${queueing} needs a study id: perflab study <id> --${queueing}`);
        return { command, global, study: null };
      }
      judged();
      const study = findStudy(id);
      if (!study)
        throw new UsageError(`unknown study "${id}"; the studies: ${studies.map((s) => s.id).join(", ")}`);
      const driver = str("driver");
      if (driver !== undefined && !(driverIds as readonly string[]).includes(driver))
        throw new UsageError(`--driver must be ${driverIds.join(" or ")}, got "${driver}"`);
      return {
        command,
        global,
        study,
        variant: values.quick ? "quick" : "published",
        wait: values["no-wait"] !== true,
        ...defined({
          servers: values.server as string[] | undefined,
          with: values.with as string[] | undefined,
          driver: driver as (typeof driverIds)[number] | undefined,
          name: str("name"),
          baseline: str("baseline"),
          tolerance,
        }),
      };
    }
    case "script":
      return { command, global, action: parseScriptAction(positionals, str("name")) };
    case "servers":
      return { command, global, action: parseServersAction(positionals) };
    case "verdict": {
      const [runId, ...extra] = positionals;
      if (!runId) throw new UsageError("verdict needs the run id");
      if (extra.length > 0) throw new UsageError(`verdict takes one run id, got also "${extra[0]}"`);
      return { command, global, runId, ...defined({ baseline: str("baseline"), tolerance }) };
    }
    case "export": {
      const [id, ...extra] = positionals;
      if (!id) throw new UsageError("export needs a run id (or a report's slug with --report)");
      if (extra.length > 0) throw new UsageError(`export takes one id, got also "${extra[0]}"`);
      if (global.json) throw new UsageError("export prints CSV, not JSON: leave out --json");
      const kind = values.report ? "reports" : "runs";
      return { command, global, path: `/api/v1/${kind}/${encodeURIComponent(id)}/cells.csv` };
    }
    case "report": {
      const [runId, ...extra] = positionals;
      if (!runId) throw new UsageError("report needs the run id");
      if (extra.length > 0) throw new UsageError(`report takes one run id, got also "${extra[0]}"`);
      const body = defined({
        runId,
        title: str("title"),
        description: str("description"),
        visibility: values.public ? "public" : undefined,
      });
      return { command, global, runId, body };
    }
  }
}

/**
 * From k6's end-of-test summary (SUMMARY_PATH): its own count of measured requests, which makes the
 * upload refuse output that lost lines, and the calls an open-model script dropped over the whole
 * test, which the upload stores only for an older output whose lines carry no per-second drops.
 */
export function countsFromK6Summary(summary: unknown): { k6Requests?: string; droppedCalls?: string } {
  const metrics = (summary as { metrics?: Record<string, { values?: { count?: unknown } }> } | null)?.metrics;
  const count = (name: string) => {
    const value = metrics?.[name]?.values?.count;
    return typeof value === "number" && Number.isInteger(value) ? String(value) : undefined;
  };
  return defined({
    k6Requests: count("http_reqs{phase:measure}"),
    droppedCalls: count("dropped_iterations"),
  });
}

export const usage: Record<CommandName | "main", string> = {
  main: `perflab — queue benchmarks, upload k6 results and judge runs against a baseline, from a shell or CI

usage: perflab <command> [options]        (perflab help <command> for its options)

commands:
  run       queue a matrix and wait for it: servers × tool × load levels × rounds
  study     queue a published study's matrix and wait for it (perflab study lists them)
  upload    upload a k6 result file: --out perflab, --out json, a summary (plain or gzip)
  verdict   judge a finished run against a baseline run: pass, fail or inconclusive
  report    freeze a finished run behind a shareable link
  export    a run's (or a report's) cells as CSV, on standard output
  script    store, list or remove the workspace's own k6 scripts (run them with run --script)
  servers   list the servers a matrix may name; register, show, change or remove the workspace's own

every command: --url <perflab> (default $PERFLAB_URL, else ${DEFAULT_URL}), --json (print the API's JSON),
              --token <API token> (default $PERFLAB_TOKEN; a lab with PERFLAB_ACCESS=token needs one to
              run, upload or share, one with PERFLAB_ACCESS=private for every command; the environment
              variable keeps it out of the process list)
              a request the lab does not answer within $PERFLAB_TIMEOUT seconds (default ${DEFAULT_TIMEOUT_SEC}; an upload
              gets at least 300, a report 250) is an error;
              while a run is waited for, and for a verdict or an export, a lab that is unreachable, times out or
              answers 5xx is asked again every 2 s for up to $PERFLAB_RETRY seconds in a row (default ${DEFAULT_RETRY_SEC};
              0 gives up at once); a queue, upload or share is asked again alike, with the Idempotency-Key
              of its first try, so the lab creates it once
exit codes: 0 done / pass · 1 regression, or the run did not succeed · 2 usage or API error · 3 inconclusive
            · 130 Ctrl-C (or SIGTERM) stopped the waiting: the run goes on, its id on stderr`,
  run: `usage: perflab run --server <name> [--server <name>…] (--vus 10,50 | --rate 100,500 [--max-vus N])
                   --duration <s> [options]

  --scenario <id>         ${defaultScenarioId} (default; ${scenarioPicks()}) or another of the catalog
${scenarioHelp("run")}
  --vus <list>            closed model: load levels in VUs
  --rate <list>           open model: load levels in calls per second; --max-vus the VU pool
  --duration <s>          measured seconds; --warmup <s> before them; --rounds <n>; --cooldown <s>
  --max-rounds <n>        adaptive rounds: after --rounds (then the minimum, at least 2) add a round
                          at a time until every neighbouring pair of servers is apart or alike, up to n
  --max-minutes <m>       and no round that would end past m minutes of the run (with --max-rounds)
  --driver local|docker   and --cpus <n>, --memory-mb <n> for containers
  --name <text>           the run's name
  --baseline <run id>     judge the run against this one when it ends (exit 1 on a regression)
  --tolerance <pct>       change not called a regression (default 10)
  --no-wait               print the run's id and return at once
  --git-repo/--git-branch/--git-commit/--git-pr  (default: GitHub Actions' GITHUB_* variables)`,
  upload: `usage: perflab upload <file> --server <name> --duration <s> [options]

  <file> is what k6 wrote, plain or gzip: perflab's --out perflab=<file>, k6's --out json=<file>,
  --summary-export=<file> or handleSummary's JSON (a summary has no series or histogram)
  --format <name>         perflab, k6-json, k6-summary-export or k6-handle-summary (default: read
                          from the file; the upload fails naming format if the file is not that)
  --warmup <s>            the warm-up the script ran (WARMUP)
  --summary <file>        k6's summary (SUMMARY_PATH): its request count guards against lost lines;
                          its dropped calls (whole test) serve only an output without per-second
                          drops (an older perflab k6): the output's measured-window count wins
  --vus <n> | --rate <n> [--max-vus <n>]   the load (default: the most VUs in the output)
${scenarioHelp("upload")}
  --scenario, --driver, --name              what was measured
  --baseline <run id>     judge the upload against this run (exit 1 on a regression)
  --tolerance <pct>       change not called a regression (default 10)
  --git-repo/--git-branch/--git-commit/--git-pr  (default: GitHub Actions' GITHUB_* variables)`,
  study: `usage: perflab study [--list]          the studies: what each measures, cells and time
       perflab study <id> [options]    queue a study's matrix and wait for it, as run does

  --quick                 the study shortened to minutes on one machine (default: as published)
  --server <name>         only these of the study's servers (repeat the flag; default: every one
                          the lab has, naming those it lacks)
  --with <name>           also this server, beside the study's (repeat the flag): your registered one
  --driver local|docker   instead of the study's own (local leaves the study's container limits out)
  --name <text>           the run's name (default: the study's title)
  --baseline <run id>     judge the run against this one when it ends (exit 1 on a regression)
  --tolerance <pct>       change not called a regression (default 10)
  --no-wait               print the run's id and return at once`,
  verdict: `usage: perflab verdict <run id> [--baseline <run id>] [--tolerance <pct>]

  judges the run against the baseline (default: the baseline the run was queued or uploaded with)
  on throughput, p99, peak memory and the share of failed requests per server, workload and load
  level; exit 0 pass, 1 fail, 3 inconclusive (nothing matched)`,
  report: `usage: perflab report <run id> [--title <text>] [--description <text>] [--public]

  freezes a finished run behind an unguessable link and prints it`,
  script: `usage: perflab script add <file.js> [--name <name>]    store a k6 script (the lab's k6 checks it first)
       perflab script list                           the workspace's scripts: id, name, size, sha256
       perflab script rm <name|id>                   remove one

  a stored script runs as the k6-script scenario: perflab run --script <name|id> --server … --vus …
  (docs/custom-scripts.md: what it reads, how its requests are counted)`,
  servers: `usage: perflab servers list                          the lab's servers, then the workspace's registered ones
       perflab servers add <server.json>              register one: an image, a command (admins) or an endpoint
       perflab servers show <name|id>                 its definition
       perflab servers update <name|id> <fields.json> change the fields the file gives
       perflab servers rm <name|id>                   remove it (its runs keep their results)

  the JSON is POST /api/v1/servers's body (docs/adding-a-server.md#registering-your-own-server)`,
  export: `usage: perflab export <run id> > cells.csv     perflab export --report <slug> > cells.csv

  one row per cell: server, workload, load, round, status, driver and limits, the summary, the
  build and the host (the run page's Download CSV)`,
};
