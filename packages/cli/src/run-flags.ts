import { defaultScenarioId } from "@perflab/contracts";
import {
  adaptiveRounds,
  defined,
  type Env,
  gitFields,
  list,
  num,
  readFlag,
  type Str,
  UsageError,
} from "./flag-values.ts";
import { pickedScenario, scenarioParams } from "./scenario-flags.ts";

/** The load model the flags choose: closed (`--vus`) or open (`--rate`), exactly one of them. */
function loadModel(str: Str): "vus" | "rate" {
  if (str("vus") !== undefined && str("rate") !== undefined)
    throw new UsageError("give --vus or --rate, not both");
  if (str("vus") === undefined && str("rate") === undefined) throw new UsageError("give --vus or --rate");
  return str("rate") !== undefined ? "rate" : "vus";
}

/** `--vus 10,50` or `--rate 100,500 [--max-vus N]` as the spec's load levels. */
function loadLevels(str: Str, model: "vus" | "rate") {
  if (str("max-vus") !== undefined && model !== "rate")
    throw new UsageError("--max-vus is the VU pool of an open-model level: give it with --rate, not --vus");
  const maxVus = num("max-vus", str("max-vus"));
  if (list(str(model)!).length === 0)
    throw new UsageError(`--${model} needs at least one load level, got "${str(model)}"`);
  return model === "rate"
    ? list(str("rate")!).map((rate) => defined({ rate: num("rate", rate), maxVus }))
    : list(str("vus")!).map((vus) => ({ vus: num("vus", vus) }));
}

/** `perflab run`'s flags as the matrix spec the API takes; the API judges the values and names a bad one. */
export function runSpec(values: Record<string, unknown>, env: Env): Record<string, unknown> {
  const str: Str = (key) => values[key] as string | undefined;
  const model = loadModel(str);
  const params = scenarioParams(str, readFlag);
  const levels = loadLevels(str, model);
  const limits = defined({ cpus: num("cpus", str("cpus")), memoryMb: num("memory-mb", str("memory-mb")) });
  const gitSpec = defined(gitFields(values, env));
  return defined({
    name: str("name"),
    servers: (values.server as string[] | undefined) ?? [],
    // A route is an http-route's, as for upload; a tool, the default scenario's.
    scenarios: [{ id: str("scenario") ?? pickedScenario(str) ?? defaultScenarioId, params }],
    loadLevels: levels,
    durationSec: num("duration", str("duration")),
    warmupSec: num("warmup", str("warmup")),
    rounds: num("rounds", str("rounds")),
    adaptive: adaptiveRounds(str),
    cooldownSec: num("cooldown", str("cooldown")),
    timeoutMs: num("timeout-ms", str("timeout-ms")),
    driver: str("driver"),
    limits: Object.keys(limits).length > 0 ? limits : undefined,
    git: Object.keys(gitSpec).length > 0 ? gitSpec : undefined,
    baselineRunId: str("baseline"),
  });
}
