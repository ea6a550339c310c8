import { defaultToolArguments, scenarioModule } from "@perflab/scenarios";

type Params = Record<string, unknown> | null | undefined;

/**
 * The arguments a call gave beyond its tool's defaults, in as few words as tell workloads apart:
 * numbers and flags as given (" (pad_to_bytes 1024)", " (delay_ms 0)"), a long text by its size
 * (" (message 10240 B)"), a structure of one's own by its name (" (own document)"); a short text
 * (another echo message) and the defaults add nothing.
 */
function argumentsNote(tool: string, args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const defaults = defaultToolArguments[tool] ?? {};
  const words = Object.entries(args).flatMap(([key, value]) => {
    if (JSON.stringify(value) === JSON.stringify(defaults[key])) return [];
    if (typeof value === "number" || typeof value === "boolean") return [`${key} ${String(value)}`];
    if (typeof value === "string")
      return value.length > 16 ? [`${key} ${new TextEncoder().encode(value).length} B`] : [];
    return [`own ${key}`];
  });
  return words.length === 0 ? "" : ` (${words.join(", ")})`;
}

/**
 * What a cell's scenario does, in a few words, for the dashboard and the `perflab` command alike:
 * its tool (else the scenario's id) with the arguments that set it apart, and how it used sessions
 * when not one per VU: "echo", "echo (pad_to_bytes 1024)", "echo · session per call",
 * "echo · 10 sessions per VU · 1000 ms think"; or the request of a plain HTTP route: "GET /rest/time".
 */
export function workloadName(cell: { scenario: string; params: unknown }): string {
  const p = (cell.params ?? {}) as NonNullable<Params>;
  const own = ownWorkloadName(cell);
  if (own !== null) return own;
  if (typeof p.route === "string" && p.route) return `GET ${p.route}`;
  const tool = typeof p.tool === "string" && p.tool ? p.tool : null;
  const what = tool ? `${tool}${argumentsNote(tool, p.arguments)}` : cell.scenario;
  if (p.session === "per-call") return `${what} · session per call`;
  const held = typeof p.sessionsPerVu === "number" ? ` · ${p.sessionsPerVu} sessions per VU` : "";
  const think = typeof p.thinkMs === "number" ? ` · ${p.thinkMs} ms think` : "";
  return `${what}${held}${think}`;
}

/** The name a scenario gives its own workloads (a mix, a request size), when it gives one. */
function ownWorkloadName(cell: { scenario: string; params: unknown }): string | null {
  const module = scenarioModule(cell.scenario);
  const parsed = module?.workload ? module.params.safeParse(cell.params) : undefined;
  return parsed?.success ? module!.workload!(parsed.data) : null;
}
