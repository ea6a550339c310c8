import { parseArgs } from "node:util";
import { checkJudged, defined, type Env, num, UsageError } from "./flag-values.ts";
import { type Global, parseGlobal } from "./global-flags.ts";
import { type CommandName, commandNames, options } from "./options.ts";
import { runSpec } from "./run-flags.ts";
import { parseScriptAction, type ScriptAction } from "./script-command.ts";
import { parseServersAction, type ServersAction } from "./servers-command.ts";
import { parseStudy, type StudyCommand } from "./study-flags.ts";
import { uploadQuery } from "./upload-flags.ts";

export { UsageError } from "./flag-values.ts";
export { DEFAULT_RETRY_SEC, DEFAULT_TIMEOUT_SEC, DEFAULT_URL, type Global } from "./global-flags.ts";
export { type CommandName, commandNames } from "./options.ts";
export { countsFromK6Summary } from "./upload-flags.ts";
export { usage } from "./usage.ts";

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
  | StudyCommand
  | { command: "verdict"; global: Global; runId: string; baseline?: string; tolerance?: number }
  | { command: "report"; global: Global; runId: string; body: Record<string, unknown> }
  | { command: "export"; global: Global; path: string }
  | { command: "script"; global: Global; action: ScriptAction }
  | { command: "servers"; global: Global; action: ServersAction };

/** `perflab help [command]`, `--help` or nothing: the help asked for, or null when another command is. */
function helpTopic(argv: string[]): { topic: CommandName | null } | null {
  const [name, topic] = argv;
  if (name !== undefined && name !== "help" && name !== "--help" && name !== "-h") return null;
  if (topic !== undefined && !commandNames.includes(topic as CommandName))
    throw new UsageError(`no help on "${topic}": the commands are ${commandNames.join(", ")}`);
  return { topic: (topic as CommandName | undefined) ?? null };
}

/** The command's flags and arguments, as node:util reads them against its table of flags. */
function parseFlags(command: CommandName, args: string[]) {
  try {
    return parseArgs({ args, options: options[command], allowPositionals: true, strict: true }) as {
      values: Record<string, unknown>;
      positionals: string[];
    };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The command line as requests to perflab's API; nothing is sent here. */
export function parseCommand(argv: string[], env: Env = process.env): ParsedCommand {
  const help = helpTopic(argv);
  if (help) return { command: "help", ...help };
  const [name, ...rest] = argv as [string, ...string[]];
  if (!commandNames.includes(name as CommandName)) throw new UsageError(`unknown command "${name}"`);
  const command = name as CommandName;
  const { values, positionals } = parseFlags(command, rest);
  if (values.help) return { command: "help", topic: command };
  const global = parseGlobal(values, env);
  const tolerance = num("tolerance", values.tolerance as string | undefined);
  const str = (key: string) => values[key] as string | undefined;

  switch (command) {
    case "run": {
      if (positionals.length > 0) throw new UsageError(`run takes no arguments, got "${positionals[0]}"`);
      checkJudged(values, tolerance);
      const spec = runSpec(values, env);
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
      checkJudged(values, tolerance);
      const query = uploadQuery(values, env);
      return { command, global, file, query, ...defined({ summaryFile: str("summary"), tolerance }) };
    }
    case "study":
      return parseStudy(values, positionals, global, tolerance);
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
