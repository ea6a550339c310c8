import { defaultScenarioId } from "@perflab/contracts";
import { DEFAULT_RETRY_SEC, DEFAULT_TIMEOUT_SEC, DEFAULT_URL } from "./global-flags.ts";
import type { CommandName } from "./options.ts";
import { scenarioHelp, scenarioPicks } from "./scenario-flags.ts";

/** The adaptive-rounds flags, as `run` and `study` both take them. */
const adaptiveHelp = `  --max-rounds <n>        adaptive rounds: after --rounds (then the minimum, at least 2) add a round
                          at a time until every neighbouring pair of servers is apart or alike, up to n
  --max-minutes <m>       and no round that would end past m minutes of the run (with --max-rounds)`;

/** The help of perflab (`main`) and of each command. */
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
${adaptiveHelp}
  --timeout-ms <ms>       k6's timeout of each request (default 60000, k6's own): a request past it
                          counts as a timeout, apart from errors
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
  --rounds <n>            rounds of every cell instead of the study's (a quick look runs 1)
${adaptiveHelp}
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
