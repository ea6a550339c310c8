import {
  matrixEstimate as estimate,
  rowLabel,
  type Study,
  type StudyRowPlan,
  type StudyVariant,
  studies,
  studyMatrix,
  type TMatrixSpecInput,
} from "@perflab/contracts";

/** A matrix's cells and about how long a worker takes over them (see the contracts' matrixEstimate). */
export function matrixEstimate(spec: TMatrixSpecInput): { cells: number; seconds: number } {
  const { cells, totalSec } = estimate(spec);
  return { cells, seconds: totalSec };
}

/** 40 s, 12 min, 2.5 h, 48 h: a duration as roughly as the estimate is. */
export function roughDuration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${hours < 10 ? hours.toFixed(1) : Math.round(hours)} h`;
}

export type StudyListing = {
  id: string;
  title: string;
  source: string;
  measures: string;
  servers: string[];
  /** With every server of the study; a lab that lacks some queues fewer cells. */
  variants: Record<StudyVariant, { cells: number; seconds: number }>;
};

/** The studies as `perflab study --list` shows them. */
export function studyListing(list: readonly Study[] = studies): StudyListing[] {
  return list.map((study) => ({
    id: study.id,
    title: study.title,
    source: study.source,
    measures: study.measures,
    servers: studyServers(study),
    variants: {
      published: matrixEstimate(studyMatrix(study, "published", studyServers(study)).spec),
      quick: matrixEstimate(studyMatrix(study, "quick", studyServers(study)).spec),
    },
  }));
}

/** The lab servers a study runs when every one is there: its rows' servers, then its extras. */
export function studyServers(study: Study): string[] {
  return [
    ...new Set([
      ...study.rows.flatMap((r) => (r.server && !r.unavailable ? [r.server] : [])),
      ...study.extras,
    ]),
  ];
}

/** What a study's run leaves out and why, a row a line: printed before it is queued. */
export function missingRows(studyId: string, missing: readonly StudyRowPlan[]): string {
  const lines = missing.map((r) => `  ${rowLabel(r)}${r.extra ? " (extra)" : ""}: ${r.missing}`);
  return `${studyId} is queued without ${missing.length === 1 ? "this row" : `these ${missing.length} rows`}:\n${lines.join("\n")}`;
}
