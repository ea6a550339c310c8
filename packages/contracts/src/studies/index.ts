import type { DriverId, TMatrixSpecInput } from "../matrix.ts";
import { multiLanguageStudies } from "./multi-language.ts";
import { nodeVsGoStudies } from "./node-vs-go.ts";
import { restStudies } from "./rest.ts";
import type { Study, StudyRowPlan, StudyVariant } from "./types.ts";

export type * from "./types.ts";

/**
 * The published studies perflab reproduces, each as the matrix that measures what it measured. A
 * study whose dimensions need different load levels per workload is split into several matrices,
 * and a study that mixed its tools in one load mixes them as published (a tool mix) and measures
 * one tool per cell in its quick variant.
 */
export const studies: readonly Study[] = [...nodeVsGoStudies, ...multiLanguageStudies, ...restStudies];

export function findStudy(id: string): Study | undefined {
  return studies.find((s) => s.id === id);
}

/** Every row of a study and the lab's extra servers, each with why this lab does not run it, if it does not. */
export function studyRows(
  study: Study,
  available: readonly string[],
  absent: (server: string) => string = (server) => `this lab has no server ${server}`,
): StudyRowPlan[] {
  const have = new Set(available);
  const missingReason = (server: string) => (have.has(server) ? null : absent(server));
  const rows = study.rows.map((row) => ({
    label: row.label,
    system: row.system,
    server: row.server ?? null,
    extra: false,
    differs: row.differs ?? null,
    missing: row.unavailable ?? (row.server ? missingReason(row.server) : "perflab has no server for it"),
    published: row.published ?? [],
  }));
  const studied = new Set(rows.map((r) => r.server));
  const extras = study.extras
    .filter((server) => !studied.has(server))
    .map((server) => ({
      label: server,
      system: "perflab's reference server on the official SDK, run beside the study's rows",
      server,
      extra: true,
      differs: null,
      missing: missingReason(server),
      published: [],
    }));
  return [...rows, ...extras];
}

/**
 * The matrix a study queues on a lab with `available` servers: every row the lab can run (in the
 * study's order, then its extras) at the variant's load. `missing` names each row it cannot, and
 * why. `quickDriver`, the lab's default driver, runs the quick variants.
 */
export function studyMatrix(
  study: Study,
  variant: StudyVariant,
  available: readonly string[],
  quickDriver?: DriverId,
): { spec: TMatrixSpecInput; rows: StudyRowPlan[]; missing: StudyRowPlan[] } {
  const load = variant === "quick" && quickDriver ? { ...study.quick, driver: quickDriver } : study[variant];
  const rows = studyRows(study, available);
  const servers = rows.flatMap((r) => (r.server && !r.missing ? [r.server] : []));
  return {
    spec: {
      name: `${study.title}${variant === "quick" ? " (quick)" : ""}`,
      servers: [...new Set(servers)],
      scenarios: studyScenarios(study, variant),
      ...load,
      cooldownSec: 2,
      study: { id: study.id, variant },
    },
    rows,
    missing: rows.filter((r) => r.missing !== null),
  };
}

/** The workloads a variant of a study runs (see Study.publishedScenarios). */
export function studyScenarios(study: Study, variant: StudyVariant): TMatrixSpecInput["scenarios"] {
  return variant === "published" ? (study.publishedScenarios ?? study.scenarios) : study.scenarios;
}

/** A row's servers as one line: "Node.js (express)", for a list of what a study runs or lacks. */
export function rowLabel(row: Pick<StudyRowPlan, "label" | "server" | "extra">): string {
  if (row.extra || !row.server || row.server === row.label) return row.label;
  return `${row.label} (${row.server})`;
}
