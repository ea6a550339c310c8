/**
 * Shapes of the REST API's responses and query strings. The routes send these, the web app's DTO
 * types are inferred from them, and the OpenAPI document is generated from them.
 */

export {
  failedCallsPct,
  rpsPerMb,
  sessionDropPct,
  ZCellDto,
  ZCellSummaryDto,
  ZDrift,
  ZDriftMeasure,
  ZLatencyDto,
} from "./api/cell.ts";
export {
  MAX_RUNS_TO_COMPARE,
  splitRunIds,
  ZRoundStats,
  ZRunComparison,
  ZRunsComparison,
  ZRunsComparisonQuery,
} from "./api/comparison.ts";
export { ZRunDto, ZRunSource, ZRunToken } from "./api/run.ts";
export {
  ZCancelledRun,
  ZCreatedRun,
  ZRunDetail,
  ZRunSnapshotEvent,
  ZServerList,
} from "./api/run-endpoints.ts";
export {
  decodeRunCursor,
  encodeRunCursor,
  type RunCursor,
  type TRunListItem,
  type TRunListPage,
  type TRunListQuery,
  ZRunListItem,
  ZRunListPage,
  ZRunListQuery,
} from "./api/run-list.ts";
export {
  type TStormFigures,
  type TStormLevel,
  type TStormPercentiles,
  ZStormFigures,
  ZStormLevel,
  ZStormPercentiles,
} from "./api/storm.ts";
export { ZVerdict, ZVerdictQuery } from "./api/verdict.ts";
export { cellStatuses, runStatuses, ZCellStatus, ZRunStatus } from "./statuses.ts";
