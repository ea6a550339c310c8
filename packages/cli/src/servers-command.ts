import { readFile } from "node:fs/promises";
import type { TRegisteredServerDto, TServerRegistration } from "@perflab/contracts";
import { ApiError, call, request } from "./api.ts";
import { type Global, UsageError } from "./args.ts";
import { EXIT, type Io } from "./io.ts";

export type ServersAction =
  | { action: "list" }
  | { action: "add"; file: string }
  | { action: "show"; server: string }
  | { action: "update"; server: string; file: string }
  | { action: "rm"; server: string };

/** `perflab servers list | add <file> | show <name|id> | update <name|id> <file> | rm <name|id>`. */
export function parseServersAction(positionals: string[]): ServersAction {
  const [action, first, second, ...extra] = positionals;
  const wanted = { list: 0, add: 1, show: 1, update: 2, rm: 1 } as const;
  if (action === undefined || !(action in wanted))
    throw new UsageError(
      `servers takes list, add <file.json>, show <name|id>, update <name|id> <file.json> or rm <name|id>, got "${positionals.join(" ")}"`,
    );
  const count = wanted[action as keyof typeof wanted];
  const given = [first, second, ...extra].filter((p) => p !== undefined).length;
  if (given !== count)
    throw new UsageError(`servers ${action} takes ${count} argument${count === 1 ? "" : "s"}, got ${given}`);
  if (action === "list") return { action };
  if (action === "add") return { action, file: first! };
  if (action === "update") return { action, server: first!, file: second! };
  return { action: action as "show" | "rm", server: first! };
}

type Listed = {
  servers: {
    name: string;
    displayName: string;
    sdk: { name: string; version: string };
    registered: TServerRegistration;
  }[];
};

/** The id of the workspace's registered server of this name, else the text itself (taken as an id). */
async function serverIdOf(global: Global, nameOrId: string): Promise<string> {
  const { servers } = await call<Listed>(global, "/api/v1/servers");
  return servers.find((s) => s.name === nameOrId)?.registered?.id ?? nameOrId;
}

async function definitionFile(file: string): Promise<string> {
  const text = await readFile(file, "utf8").catch((error: Error) => {
    throw new UsageError(`the server definition ${file} could not be read: ${error.message}`);
  });
  try {
    return JSON.stringify(JSON.parse(text));
  } catch (error) {
    throw new UsageError(`the server definition ${file} is not JSON: ${(error as Error).message}`);
  }
}

const json = (method: string, body: string): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body,
});

const described = (s: TRegisteredServerDto) => {
  const d = s.definition;
  const where = d.kind === "image" ? d.image : d.kind === "command" ? d.command.join(" ") : d.url;
  return `${d.name}  ${d.kind}  ${d.sdk.name} ${d.sdk.version}  ${where}  (${s.id})`;
};

/** `perflab servers …`: lists the servers a matrix may name; registers, shows, changes or removes the workspace's own. */
export async function serversCommand(io: Io, global: Global, action: ServersAction): Promise<number> {
  const print = (server: TRegisteredServerDto, verb: string) =>
    io.out(global.json ? JSON.stringify(server) : `${verb} ${described(server)}`);
  if (action.action === "list") {
    const listed = await call<Listed>(global, "/api/v1/servers");
    if (global.json) io.out(JSON.stringify(listed));
    else
      for (const s of listed.servers)
        io.out(`${s.name}  ${s.registered ? s.registered.kind : "lab"}  ${s.sdk.name} ${s.sdk.version}`);
  } else if (action.action === "add") {
    const body = await definitionFile(action.file);
    print(await call<TRegisteredServerDto>(global, "/api/v1/servers", json("POST", body)), "registered");
  } else if (action.action === "update") {
    const [id, body] = await Promise.all([serverIdOf(global, action.server), definitionFile(action.file)]);
    const where = `/api/v1/servers/${encodeURIComponent(id)}`;
    print(await call<TRegisteredServerDto>(global, where, json("PATCH", body)), "updated");
  } else if (action.action === "show") {
    const id = await serverIdOf(global, action.server);
    print(await call<TRegisteredServerDto>(global, `/api/v1/servers/${encodeURIComponent(id)}`), "");
  } else {
    await removeServer(io, global, action.server);
  }
  return EXIT.ok;
}

async function removeServer(io: Io, global: Global, server: string): Promise<void> {
  const id = await serverIdOf(global, server);
  const where = `/api/v1/servers/${encodeURIComponent(id)}`;
  const { response, text } = await request(global, where, { method: "DELETE" });
  if (response.status !== 204) {
    const problem = JSON.parse(text || "null") as {
      detail?: string;
      errors?: { field: string; message: string }[];
    } | null;
    const fields = (problem?.errors ?? []).map((e) => `\n  ${e.field}: ${e.message}`).join("");
    throw new ApiError(
      `DELETE ${where} → ${response.status} ${problem?.detail ?? text.slice(0, 200)}${fields}`,
      response.status >= 500,
    );
  }
  io.out(global.json ? JSON.stringify({ removed: id }) : `removed server ${server} (${id})`);
}
