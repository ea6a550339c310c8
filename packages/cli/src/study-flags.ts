import { driverIds, findStudy, type Study, type StudyVariant, studies } from "@perflab/contracts";
import { adaptiveRounds, checkJudged, defined, num, type Str, UsageError } from "./flag-values.ts";
import type { Global } from "./global-flags.ts";

export type StudyCommand =
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
      /** The study's rounds replaced; with `adaptive`, the minimum before the rule's first look. */
      rounds?: number;
      adaptive?: ReturnType<typeof adaptiveRounds>;
      name?: string;
      baseline?: string;
      wait: boolean;
      tolerance?: number;
    };

/** The flags of a queued study, which mean nothing to the list. */
const queueing = [
  "quick",
  "rounds",
  "max-rounds",
  "max-minutes",
  "server",
  "with",
  "driver",
  "name",
  "baseline",
  "tolerance",
  "no-wait",
];

/** `perflab study [--list]` (the list) or `perflab study <id> [flags]` (a study to queue). */
export function parseStudy(
  values: Record<string, unknown>,
  positionals: string[],
  global: Global,
  tolerance: number | undefined,
): StudyCommand {
  const [id, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`study takes one study id, got also "${extra[0]}"`);
  if (id === undefined || values.list) {
    if (id !== undefined) throw new UsageError("give a study id or --list, not both");
    // A queueing flag with the list is a forgotten id, not a list wanted.
    const flag = queueing.find((f) => values[f] !== undefined && values[f] !== false);
    if (flag) throw new UsageError(`--${flag} needs a study id: perflab study <id> --${flag}`);
    return { command: "study", global, study: null };
  }
  checkJudged(values, tolerance);
  const study = findStudy(id);
  if (!study)
    throw new UsageError(`unknown study "${id}"; the studies: ${studies.map((s) => s.id).join(", ")}`);
  const str: Str = (key) => values[key] as string | undefined;
  const driver = str("driver");
  if (driver !== undefined && !(driverIds as readonly string[]).includes(driver))
    throw new UsageError(`--driver must be ${driverIds.join(" or ")}, got "${driver}"`);
  return {
    command: "study",
    global,
    study,
    variant: values.quick ? "quick" : "published",
    wait: values["no-wait"] !== true,
    ...defined({
      servers: values.server as string[] | undefined,
      with: values.with as string[] | undefined,
      driver: driver as (typeof driverIds)[number] | undefined,
      rounds: num("rounds", str("rounds")),
      adaptive: adaptiveRounds(str),
      name: values.name as string | undefined,
      baseline: values.baseline as string | undefined,
      tolerance,
    }),
  };
}
