import {
  type AnyScenarioModule,
  type DriverId,
  formParams,
  initialFormValues,
  scenarioIds,
  scenarioModule,
  type TServerInfo,
  withFormValue,
  withServerTools,
  ZMatrixSpecInput,
} from "@perflab/contracts";
import type { FieldMatch } from "@/lib/form-errors";
import { splitVuList } from "@/lib/matrix-preview";

export type FormState = {
  name: string;
  /** Selected server names, kept in the catalog's order. */
  servers: string[];
  scenario: string;
  /**
   * Each scenario's own fields as typed (its module's `form`), by scenario id and parameter name:
   * kept while another scenario is chosen.
   */
  params: Record<string, Record<string, string>>;
  /** Closed model: levels are VUs; open model: operations started per second. */
  model: "closed" | "open";
  /** Load levels as typed: "10, 50, 100" (VUs, or operations per second in the open model). */
  vus: string;
  /** Open model: the VU pool of every level; empty for the default. */
  maxVus: string;
  /** k6's timeout of each request in ms; empty for k6's own 60 s. */
  timeoutMs: string;
  durationSec: string;
  warmupSec: string;
  rounds: string;
  /** Adaptive rounds: `rounds` is then the minimum, and the worker adds rounds up to `maxRounds`. */
  adaptive: boolean;
  maxRounds: string;
  /** The adaptive run's wall-clock budget in minutes; empty for none. */
  maxMinutes: string;
  driver: DriverId;
  cpus: string;
  memoryMb: string;
  cpuset: string;
};

/** The form's own fields (not a scenario's), each with the error paths it shows. */
export type BaseField = Exclude<keyof FormState, "params">;

/** A field in error, as the preview lists it: its key and its name there. */
export type FieldEntry = { key: string; label: string; match: FieldMatch };

const base = (key: BaseField, label: string, match: FieldMatch): FieldEntry => ({ key, label, match });

/** Fields above the scenario's own, in the form's order. */
const fieldsBefore: FieldEntry[] = [
  base("name", "Name", { exact: ["name"] }),
  base("servers", "Servers", { exact: [], prefix: "servers" }),
  base("scenario", "Scenario", { exact: ["scenarios", "scenarios.0", "scenarios.0.id"] }),
];

/** Fields below the scenario's own, in the form's order. */
const fieldsAfter: FieldEntry[] = [
  base("model", "Load model", { exact: [] }),
  // Shown beside the pool's own field: see poolErrors.
  base("maxVus", "Max VUs", { exact: [] }),
  base("timeoutMs", "Client timeout", { exact: ["timeoutMs"] }),
  base("vus", "Virtual users", { exact: [], prefix: "loadLevels" }),
  base("durationSec", "Duration", { exact: ["durationSec"] }),
  base("warmupSec", "Warm-up", { exact: ["warmupSec"] }),
  base("rounds", "Rounds", { exact: ["rounds"] }),
  base("adaptive", "Adaptive rounds", { exact: ["adaptive", "adaptive.equivalencePct"] }),
  base("maxRounds", "Max rounds", { exact: ["adaptive.maxRounds"] }),
  base("maxMinutes", "Max minutes", { exact: ["adaptive.maxMinutes"] }),
  base("driver", "Driver", { exact: ["driver"] }),
  base("cpus", "CPU limit", { exact: ["limits.cpus"] }),
  base("memoryMb", "Memory limit", { exact: ["limits.memoryMb"] }),
  base("cpuset", "CPU set", { exact: ["limits.cpuset"] }),
];

/** The error paths of a scenario's field: its parameter and everything below it. */
export const paramMatch = (name: string): FieldMatch => ({ exact: [], prefix: `scenarios.0.params.${name}` });

/** Every field of the form with this scenario chosen, in the form's order. */
export function formFields(module: AnyScenarioModule | undefined): FieldEntry[] {
  const own = (module?.form ?? []).map((f) => ({
    key: `params.${f.name}`,
    label: f.listLabel ?? f.label,
    match: paramMatch(f.name),
  }));
  return [...fieldsBefore, ...own, ...fieldsAfter];
}

/** The match of one of the form's own fields. */
export const baseMatch = (key: BaseField): FieldMatch =>
  [...fieldsBefore, ...fieldsAfter].find((f) => f.key === key)!.match;

/** The form as it opens: the first server, the first scenario, each scenario's defaults. */
export function initialFormState(servers: TServerInfo[], scenario: string, driver: DriverId): FormState {
  const first = servers[0];
  const params = Object.fromEntries(
    scenarioIds.map((id) => [id, initialFormValues(scenarioModule(id)!, first?.tools[0])]),
  );
  return {
    name: "",
    servers: first ? [first.name] : [],
    scenario,
    params,
    model: "closed",
    vus: "10",
    maxVus: "",
    timeoutMs: "",
    durationSec: "30",
    warmupSec: "5",
    rounds: "1",
    adaptive: false,
    maxRounds: "8",
    maxMinutes: "",
    driver,
    cpus: "",
    memoryMb: "",
    cpuset: "",
  };
}

/**
 * Tools every selected server offers, in the first one's order. A server that lists no tools
 * accepts any (the schema does not check it), so it narrows nothing; null when none lists tools.
 */
export function commonTools(servers: TServerInfo[], selected: string[]): string[] | null {
  const lists = servers.filter((s) => selected.includes(s.name) && s.tools.length > 0).map((s) => s.tools);
  if (lists.length === 0) return null;
  return lists[0]!.filter((tool) => lists.every((list) => list.includes(tool)));
}

/**
 * The form with a change applied: servers kept in the catalog's order, and each scenario's tool
 * moved to one the selected servers share when they no longer all offer it.
 */
export function patchForm(form: FormState, patch: Partial<FormState>, servers: TServerInfo[]): FormState {
  const next = { ...form, ...patch };
  if (patch.servers === undefined) return next;
  next.servers = servers.map((s) => s.name).filter((name) => patch.servers!.includes(name));
  const shared = commonTools(servers, next.servers);
  next.params = Object.fromEntries(
    Object.entries(next.params).map(([id, values]) => {
      const module = scenarioModule(id);
      return [id, module ? withServerTools(module, values, shared) : values];
    }),
  );
  return next;
}

/** The chosen scenario's fields with one changed (and the fields that follow it reset). */
export function withParam(form: FormState, name: string, value: string): Pick<FormState, "params"> {
  const module = scenarioModule(form.scenario);
  const values = form.params[form.scenario] ?? {};
  if (!module) return { params: form.params };
  return { params: { ...form.params, [form.scenario]: withFormValue(module, values, name, value) } };
}

/** A whole number ≥ min, or null: the preview only counts what the schema would accept. */
export function wholeNumber(text: string, min: number): number | null {
  if (text.trim() === "") return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= min ? n : null;
}

/** The API's default cool-down between cells; the form does not change it. */
export const DEFAULT_COOLDOWN_SEC = ZMatrixSpecInput.shape.cooldownSec.parse(undefined);

/** What the form sends: the same input shape an API client posts (arguments may still be text). */
export function toSpecInput(form: FormState) {
  const module = scenarioModule(form.scenario);
  return {
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    servers: form.servers,
    scenarios: [
      { id: form.scenario, params: module ? formParams(module, form.params[form.scenario] ?? {}) : {} },
    ],
    loadLevels: splitVuList(form.vus).map((value) =>
      form.model === "open"
        ? { rate: value, ...(form.maxVus.trim() ? { maxVus: form.maxVus.trim() } : {}) }
        : { vus: value },
    ),
    durationSec: form.durationSec,
    warmupSec: form.warmupSec,
    rounds: form.rounds,
    ...(form.timeoutMs.trim() ? { timeoutMs: form.timeoutMs.trim() } : {}),
    ...(form.adaptive
      ? {
          adaptive: {
            maxRounds: form.maxRounds,
            ...(form.maxMinutes.trim() ? { maxMinutes: form.maxMinutes.trim() } : {}),
          },
        }
      : {}),
    driver: form.driver,
    // Limits apply to containers; empty fields mean the driver's defaults (2 vCPU / 2 GB for docker).
    ...(form.cpus.trim() || form.memoryMb.trim() || form.cpuset.trim()
      ? {
          limits: {
            ...(form.cpus.trim() ? { cpus: form.cpus } : {}),
            ...(form.memoryMb.trim() ? { memoryMb: form.memoryMb } : {}),
            ...(form.cpuset.trim() ? { cpuset: form.cpuset.trim() } : {}),
          },
        }
      : {}),
  };
}
