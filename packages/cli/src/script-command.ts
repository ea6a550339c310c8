import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TK6ScriptDto, TK6ScriptList } from "@perflab/contracts";
import { ApiError, call, request } from "./api.ts";
import { type Global, UsageError } from "./args.ts";
import { EXIT, type Io } from "./io.ts";

export type ScriptAction =
  | { action: "add"; file: string; name?: string }
  | { action: "list" }
  | { action: "rm"; script: string };

/** `perflab script add <file> [--name n] | list | rm <name|id>` as one action. */
export function parseScriptAction(positionals: string[], name: string | undefined): ScriptAction {
  const [action, arg, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`script ${action} takes one argument, got also "${extra[0]}"`);
  if (action === "add") {
    if (!arg) throw new UsageError("script add needs the k6 script's file");
    return { action, file: arg, ...(name === undefined ? {} : { name }) };
  }
  if (action === "list" && arg === undefined) return { action };
  if (action === "rm") {
    if (!arg) throw new UsageError("script rm needs the script's name or id");
    return { action, script: arg };
  }
  throw new UsageError(`script takes add <file>, list or rm <name|id>, got "${positionals.join(" ")}"`);
}

/** The id of the workspace's script of this name, else the text itself (taken as an id). */
export async function scriptIdOf(global: Global, nameOrId: string): Promise<string> {
  const { scripts } = await call<TK6ScriptList>(global, "/api/v1/scripts");
  return scripts.find((s) => s.name === nameOrId)?.id ?? nameOrId;
}

const line = (s: TK6ScriptDto) =>
  `${s.id}  ${s.name}  ${s.bytes} bytes  sha256 ${s.sha256.slice(0, 12)}  ${s.createdAt}`;

/** `perflab script …`: stores (after the lab's `k6 inspect`), lists or removes the workspace's scripts. */
export async function scriptCommand(io: Io, global: Global, action: ScriptAction): Promise<number> {
  if (action.action === "add") {
    const source = await readFile(action.file, "utf8").catch((error: Error) => {
      throw new UsageError(`the k6 script ${action.file} could not be read: ${error.message}`);
    });
    const name = action.name ?? path.basename(action.file).replace(/\.[cm]?js$/, "");
    const created = await call<TK6ScriptDto>(global, "/api/v1/scripts", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, source }),
    });
    io.out(global.json ? JSON.stringify(created) : `stored script ${created.name}: ${created.id}`);
  } else if (action.action === "list") {
    const listed = await call<TK6ScriptList>(global, "/api/v1/scripts");
    if (global.json) io.out(JSON.stringify(listed));
    else for (const s of listed.scripts) io.out(line(s));
  } else {
    const id = await scriptIdOf(global, action.script);
    const where = `/api/v1/scripts/${encodeURIComponent(id)}`;
    const { response, text } = await request(global, where, { method: "DELETE" });
    if (response.status !== 204) {
      const detail = (JSON.parse(text || "null") as { detail?: string } | null)?.detail ?? text.slice(0, 200);
      throw new ApiError(`DELETE ${where} → ${response.status} ${detail}`, response.status >= 500);
    }
    io.out(global.json ? JSON.stringify({ removed: id }) : `removed script ${id}`);
  }
  return EXIT.ok;
}

/** The spec with each k6-script scenario's script given by name (`run --script <name>`) as its id. */
export async function withScriptIds(
  global: Global,
  spec: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const scenarios = spec.scenarios as { id: string; params?: { scriptId?: string } }[] | undefined;
  if (!scenarios?.some((s) => s.id === "k6-script" && s.params?.scriptId)) return spec;
  const named = await Promise.all(
    scenarios.map(async (s) =>
      s.id === "k6-script" && s.params?.scriptId
        ? { ...s, params: { ...s.params, scriptId: await scriptIdOf(global, s.params.scriptId) } }
        : s,
    ),
  );
  return { ...spec, scenarios: named };
}
