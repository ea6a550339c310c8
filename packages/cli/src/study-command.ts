import { type DriverId, studyMatrix, type TMatrixSpecInput } from "@perflab/contracts";
import { call } from "./api.ts";
import { type ParsedCommand, UsageError } from "./args.ts";
import { EXIT, type Io } from "./io.ts";
import { printStudies } from "./print.ts";
import { queueAndWait } from "./queue.ts";
import { matrixEstimate, missingRows, roughDuration, studyServers } from "./study.ts";

/** The study's servers that the lab has, narrowed to those --server chose. */
function chosenServers(studyId: string, servers: string[], chosen: string[] | undefined): string[] {
  if (!chosen) return servers;
  const other = chosen.filter((s) => !servers.includes(s));
  if (other.length > 0)
    throw new UsageError(
      `--server ${other.join(", ")}: not among ${studyId}'s servers that this lab has (${servers.join(", ")})`,
    );
  return servers.filter((s) => chosen.includes(s));
}

/** `--with`: servers of the lab (a workspace's registered ones) queued beside the study's rows. */
function beside(lab: { servers: { name: string }[] }, names: string[] | undefined): string[] {
  const unknown = (names ?? []).filter((n) => !lab.servers.some((s) => s.name === n));
  if (unknown.length > 0)
    throw new UsageError(
      `--with ${unknown.join(", ")}: not a server of this lab or workspace (perflab servers list)`,
    );
  return [...new Set(names ?? [])];
}

/** `perflab study`: lists the studies, or queues one on the lab's servers and follows it. */
export async function studyCommand(
  io: Io,
  parsed: Extract<ParsedCommand, { command: "study" }>,
): Promise<number> {
  const { global, study } = parsed;
  if (study === null) {
    printStudies(io, global);
    return EXIT.ok;
  }
  const lab = await call<{ servers: { name: string }[]; defaultDriver?: DriverId }>(
    global,
    "/api/v1/servers",
  );
  // The quick variants run on the lab's default driver, as its Studies page queues them (a
  // compose lab's containers: its app image has no JDK or Python to run those servers locally).
  const { spec, missing } = studyMatrix(
    study,
    parsed.variant,
    lab.servers.map((s) => s.name),
    lab.defaultDriver,
  );
  if (spec.servers.length === 0)
    throw new UsageError(`the lab has none of ${study.id}'s servers (${studyServers(study).join(", ")})`);
  if (missing.length > 0) io.err(missingRows(study.id, missing));
  const chosen = chosenServers(study.id, spec.servers, parsed.servers);
  const servers = [...chosen, ...beside(lab, parsed.with).filter((name) => !chosen.includes(name))];
  const driver = parsed.driver ?? spec.driver ?? "local";
  // Only the docker driver applies limits: a local run that kept them would record a request
  // nothing enforced in its spec.
  const { limits, ...rest } = spec;
  if (limits && driver === "local")
    io.err(
      `${study.id} runs its servers in containers with limits as published; --driver local leaves them out`,
    );
  const queued: TMatrixSpecInput = {
    ...rest,
    servers,
    driver,
    ...(limits && driver !== "local" ? { limits } : {}),
    ...(parsed.rounds !== undefined ? { rounds: parsed.rounds } : {}),
    // The flags' rule replaces a study's own (--rounds alone keeps it, as its minimum).
    ...(parsed.adaptive ? { adaptive: parsed.adaptive } : {}),
    ...(parsed.name !== undefined ? { name: parsed.name } : {}),
    ...(parsed.baseline !== undefined ? { baselineRunId: parsed.baseline } : {}),
  };
  if (!global.json) {
    const { cells, seconds } = matrixEstimate(queued);
    io.err(
      `${study.id}${parsed.variant === "quick" ? " --quick" : ""}: ${servers.join(", ")} · ${cells} cell${cells === 1 ? "" : "s"}, about ${roughDuration(seconds)}`,
    );
  }
  return await queueAndWait(io, global, queued, parsed);
}
