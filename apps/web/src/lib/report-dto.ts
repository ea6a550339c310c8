import type {
  TCreatedReport,
  TReport,
  TReportCell,
  TReportListItem,
  TReportSnapshot,
} from "@perflab/contracts";
import type { RunDto } from "./dto";

/** Inferred from the contracts' report schemas, which the report routes and OpenAPI declare. */
export { REPORT_POINTS_PER_CELL } from "@perflab/contracts";

/** A cell as frozen in a report: its DTO plus the server build it ran (language, SDK, image…). */
export type ReportCellDto = TReportCell;

/** Everything a report page renders; its run's spec typed as the matrix it was (see RunDto). */
export type ReportSnapshotDto = Omit<TReportSnapshot, "run"> & { run: RunDto };

export type ReportDto = Omit<TReport, "snapshot"> & { snapshot: ReportSnapshotDto };

export type CreatedReportDto = TCreatedReport;

/** A report in a list (the Reports page, a run's page): the API's item without its absolute URL. */
export type ListedReportDto = Omit<TReportListItem, "url">;
