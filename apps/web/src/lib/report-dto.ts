import type { TReportListItem } from "@perflab/contracts";
import type { CellDto, PointDto, RunDto } from "./dto";

/** A cell as frozen in a report: its DTO plus the server build it ran (language, SDK, image…). */
export type ReportCellDto = CellDto & { serverBuild: unknown };

/** Everything a report page renders, copied from the run when the report was created. */
export type ReportSnapshotDto = {
  version: 1;
  run: RunDto;
  cells: ReportCellDto[];
  /**
   * Each cell's seconds, cut to at most REPORT_POINTS_PER_CELL (a report is a document, not the
   * lab's record). Absent in reports frozen before the series were kept.
   */
  points?: Record<string, PointDto[]>;
};

export const REPORT_POINTS_PER_CELL = 600;

export type ReportDto = {
  slug: string;
  title: string;
  description: string | null;
  visibility: "private" | "unlisted" | "public";
  runId: string;
  createdAt: string;
  expiresAt: string | null;
  snapshot: ReportSnapshotDto;
};

export type CreatedReportDto = { slug: string; url: string };

/** A report in a list (the Reports page, a run's page): the API's item without its absolute URL. */
export type ListedReportDto = Omit<TReportListItem, "url">;
