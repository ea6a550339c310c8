import {
  type DriverId,
  matrixEstimate,
  type Study,
  type StudyRowPlan,
  type StudyVariant,
  scenarioModule,
  studyMatrix,
  studyScenarios,
  type TMatrixSpecInput,
  workloadName,
} from "@perflab/contracts";

/** A study as its card shows it: per variant the matrix this lab would queue, and its size. */
export type StudyView = {
  id: string;
  title: string;
  source: string;
  measures: string;
  servers: string[];
  /** Every system the study measured, then the lab's extra servers, each with why this lab cannot run it. */
  rows: StudyRowPlan[];
  workloads: string[];
  variants: Record<StudyVariant, { spec: TMatrixSpecInput; cells: number; totalSec: number; load: string }>;
};

/** An argument as a label shows it: numbers as written, anything larger left out. */
function argumentsLabel(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const shown = Object.entries(args).filter(([, v]) => typeof v === "number" || typeof v === "boolean");
  return shown.length === 0 ? "" : ` (${shown.map(([k, v]) => `${k} ${String(v)}`).join(", ")})`;
}

/** One workload in a few words: "echo (pad_to_bytes 1024)", "echo · session per call", "GET /rest/time". */
export function studyWorkload(scenario: { id: string; params?: Record<string, unknown> }): string {
  const p = scenario.params ?? {};
  // A scenario that names its own workloads (a tool mix, a request size) says them.
  if (scenarioModule(scenario.id)?.workload) return workloadName({ scenario: scenario.id, params: p });
  if (typeof p.route === "string") return `GET ${p.route}`;
  const parts = [`${typeof p.tool === "string" ? p.tool : scenario.id}${argumentsLabel(p.arguments)}`];
  if (p.session === "per-call") parts.push("session per call");
  if (typeof p.sessionsPerVu === "number") parts.push(`${p.sessionsPerVu} sessions per VU`);
  if (typeof p.thinkMs === "number") parts.push(`${p.thinkMs} ms think`);
  return parts.join(" · ");
}

/** "50 VUs", "10, 100, 1000 VUs", "500 calls/s"; then duration, warm-up, rounds, driver and limits. */
export function loadSummary(spec: TMatrixSpecInput): string {
  const vus = spec.loadLevels.flatMap((l) => (l.vus !== undefined ? [Number(l.vus)] : []));
  const rates = spec.loadLevels.flatMap((l) => (l.rate !== undefined ? [Number(l.rate)] : []));
  const levels = [
    vus.length ? `${vus.join(", ")} ${vus.length === 1 && vus[0] === 1 ? "VU" : "VUs"}` : "",
    rates.length ? `${rates.join(", ")} calls/s` : "",
  ].filter(Boolean);
  const limits = spec.limits
    ? ` (${[
        spec.limits.cpus !== undefined ? `${spec.limits.cpus} vCPU` : "",
        spec.limits.memoryMb !== undefined ? `${spec.limits.memoryMb} MB` : "",
      ]
        .filter(Boolean)
        .join(" / ")})`
    : "";
  const rounds = Number(spec.rounds ?? 1);
  return [
    levels.join(" + "),
    `${formatSeconds(Number(spec.durationSec))} after ${formatSeconds(Number(spec.warmupSec ?? 0))} warm-up`,
    `${rounds} ${rounds === 1 ? "round" : "rounds"}`,
    `${spec.driver ?? "local"}${limits}`,
  ].join(" · ");
}

function formatSeconds(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export function studyView(study: Study, available: readonly string[], defaultDriver?: DriverId): StudyView {
  const variant = (name: StudyVariant) => {
    const { spec } = studyMatrix(study, name, available, defaultDriver);
    const { cells, totalSec } = matrixEstimate(spec);
    return { spec, cells, totalSec, load: loadSummary(spec) };
  };
  const { spec, rows } = studyMatrix(study, "published", available);
  return {
    id: study.id,
    title: study.title,
    source: study.source,
    measures: study.measures,
    servers: spec.servers,
    rows,
    // Both variants' workloads: as published (a tool mix), then the quick look's (each tool alone).
    workloads: [
      ...new Set(
        [...studyScenarios(study, "published"), ...studyScenarios(study, "quick")].map((s) =>
          studyWorkload(s as { id: string; params?: Record<string, unknown> }),
        ),
      ),
    ],
    variants: { published: variant("published"), quick: variant("quick") },
  };
}
