import { ApiError } from "./api.ts";
import { parseCommand, UsageError, usage } from "./args.ts";
import { exportCommand, reportCommand, uploadCommand, verdictCommand } from "./commands.ts";
import { EXIT, type Io } from "./io.ts";
import { queueAndWait } from "./queue.ts";
import { scriptCommand, withScriptIds } from "./script-command.ts";
import { serversCommand } from "./servers-command.ts";
import { studyCommand } from "./study-command.ts";

export { EXIT, type Io } from "./io.ts";

const processIo: Io = {
  raw: (text) => process.stdout.write(text),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs one command line; resolves to the process's exit code. */
export async function run(argv: string[], io: Io = processIo, env = process.env): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`perflab: ${error.message}`);
    io.err(usage.main);
    return EXIT.error;
  }
  try {
    switch (parsed.command) {
      case "help":
        io.out(usage[parsed.topic ?? "main"]);
        return EXIT.ok;
      case "run":
        return await queueAndWait(io, parsed.global, await withScriptIds(parsed.global, parsed.spec), parsed);
      case "study":
        return await studyCommand(io, parsed);
      case "upload":
        return await uploadCommand(io, parsed);
      case "verdict":
        return await verdictCommand(io, parsed);
      case "export":
        return await exportCommand(io, parsed);
      case "report":
        return await reportCommand(io, parsed);
      case "script":
        return await scriptCommand(io, parsed.global, parsed.action);
      case "servers":
        return await serversCommand(io, parsed.global, parsed.action);
    }
  } catch (error) {
    if (error instanceof ApiError || error instanceof UsageError) {
      io.err(`perflab: ${error.message}`);
      return EXIT.error;
    }
    throw error;
  }
}
