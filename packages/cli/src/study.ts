import {
  matrixEstimate as estimate,
  type Study,
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
    servers: study.servers,
    variants: {
      published: matrixEstimate(studyMatrix(study, "published", study.servers).spec),
      quick: matrixEstimate(studyMatrix(study, "quick", study.servers).spec),
    },
  }));
}
