import { type CliFlag, type CliHelp, scenarioModules } from "@perflab/contracts";

/** A flag's value on the command line, if given. */
type Flags = (flag: string) => string | undefined;

/** Every scenario's own flags (its module's `cli`), in the registry's order. */
const scenarioFlags: readonly (CliFlag & { scenario: string })[] = scenarioModules.flatMap((m) =>
  m.cli.map((flag) => ({ ...flag, scenario: m.id })),
);

/** The scenarios' flags as options: every one for `run`, those an upload's query takes for `upload`. */
export function scenarioOptions(command: "run" | "upload") {
  const flags = scenarioFlags.filter((f) => command === "run" || f.upload !== undefined);
  return Object.fromEntries(flags.map((f) => [f.flag, { type: "string" }])) as Record<
    string,
    { type: "string" }
  >;
}

/** The scenario a flag of its own picks (--route: http-route) when --scenario names none. */
export const pickedScenario = (str: Flags) =>
  scenarioFlags.find((f) => f.picksScenario && str(f.flag) !== undefined)?.scenario;

/**
 * The scenario parameters of `perflab run`'s flags, each value read as its flag says (`read`
 * throws the usage error for a value that is not of its kind).
 */
export function scenarioParams(
  str: Flags,
  read: (flag: CliFlag, text: string) => unknown,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const f of scenarioFlags) {
    const text = str(f.flag);
    if (text !== undefined && !(f.param in params)) params[f.param] = read(f, text);
  }
  return params;
}

/** The call an upload measured, as its query says it: the first flag given for each key wins. */
export function uploadCall(str: Flags): Record<string, string> {
  const query: Record<string, string> = {};
  for (const f of scenarioFlags) {
    const text = str(f.flag);
    if (f.upload !== undefined && text !== undefined) query[f.upload] ??= text;
  }
  return query;
}

/** A help line: the flag as typed in a column of 24, what it does after (further lines under it). */
function helpLine({ synopsis, text }: CliHelp): string {
  const [first, ...more] = text.split("\n");
  return [`  ${synopsis.padEnd(21)}   ${first}`, ...more.map((line) => `${" ".repeat(26)}${line}`)].join(
    "\n",
  );
}

/** The scenarios' lines of a command's help, in the registry's order. */
export function scenarioHelp(command: "run" | "upload"): string {
  return scenarioFlags.flatMap((f) => (f.help?.[command] ? [helpLine(f.help[command])] : [])).join("\n");
}

/** "http-route with --route": the scenarios a flag of their own picks. */
export const scenarioPicks = () =>
  scenarioFlags
    .filter((f) => f.picksScenario)
    .map((f) => `${f.scenario} with --${f.flag}`)
    .join("; ");
