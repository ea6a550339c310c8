import type { RegisteredServerKind } from "@perflab/contracts";

/** The Servers form's inputs as typed: strings, turned into a definition by `definitionOf`. */
export type FormValues = {
  kind: RegisteredServerKind;
  name: string;
  displayName: string;
  language: string;
  runtime: string;
  sdkName: string;
  sdkVersion: string;
  mcpPath: string;
  healthPath: string;
  tools: string;
  image: string;
  port: string;
  env: string;
  command: string;
  cwd: string;
  url: string;
  runtimeUrl: string;
};

export const initialValues: FormValues = {
  kind: "image",
  name: "",
  displayName: "",
  language: "",
  runtime: "",
  sdkName: "",
  sdkVersion: "",
  mcpPath: "/mcp",
  healthPath: "/health",
  tools: "",
  image: "",
  port: "",
  env: "",
  command: "",
  cwd: "/",
  url: "",
  runtimeUrl: "",
};

const list = (text: string, separator: RegExp) =>
  text
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);

/** `NAME=value` lines as a record; a line without `=` keeps its name with an empty value. */
function envOf(text: string): Record<string, string> {
  return Object.fromEntries(
    list(text, /\n/).map((line) => {
      const at = line.indexOf("=");
      return at < 0 ? [line, ""] : [line.slice(0, at).trim(), line.slice(at + 1)];
    }),
  );
}

/** The definition the API takes, with what was left empty left out (its defaults apply). */
export function definitionOf(v: FormValues): Record<string, unknown> {
  const port = v.port.trim() ? Number(v.port.trim()) : undefined;
  const identity = {
    name: v.name.trim(),
    displayName: v.displayName.trim() || v.name.trim(),
    language: v.language,
    runtime: v.runtime,
    sdk: { name: v.sdkName, version: v.sdkVersion },
    tools: list(v.tools, /,/),
    mcpPath: v.mcpPath.trim(),
    healthPath: v.healthPath.trim(),
  };
  if (v.kind === "image")
    return { ...identity, kind: v.kind, image: v.image.trim(), port, env: envOf(v.env) };
  if (v.kind === "command")
    return {
      ...identity,
      kind: v.kind,
      command: list(v.command, /\s+/),
      cwd: v.cwd.trim(),
      port,
      env: envOf(v.env),
    };
  return {
    ...identity,
    kind: v.kind,
    url: v.url.trim(),
    ...(v.runtimeUrl.trim() ? { runtimeUrl: v.runtimeUrl.trim() } : {}),
  };
}
