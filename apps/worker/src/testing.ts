/**
 * What the integration tests, benches and scripts drive the worker's parts with: drivers, k6
 * runners, stages and the cell pipeline, each as the worker itself uses it.
 */
export { createDockerDriver, type DockerDriver, type DockerStartRequest } from "./drivers/docker.ts";
export { dockerAt, LABEL_CELL, LABEL_INSTANCE, LABEL_OWNER, LABEL_ROLE } from "./drivers/docker-engine.ts";
export { resourcesFromStats } from "./drivers/docker-stats.ts";
export { BACKEND_IMAGES } from "./drivers/engine-fixtures.ts";
export { createDockerK6Runner } from "./drivers/k6-docker.ts";
export { createLocalK6Runner } from "./drivers/k6-local.ts";
export { localDriver, OWN_PROCESS_GROUP } from "./drivers/local.ts";
export { reapOrphanProcesses } from "./drivers/orphans.ts";
export type { Driver, ExitInfo, RunningServer, ServerObserver } from "./drivers/types.ts";
export type { WorkerEnv } from "./env.ts";
export { workerEnvSchema } from "./env-schema.ts";
export { freePort, waitForPort } from "./host.ts";
export { claimHostId, HostIdInUse, machineBootId } from "./host-claim.ts";
export { ingestUpload } from "./ingest/ingest-upload.ts";
export { logger } from "./logger.ts";
export { OWNER_ENV, parseOwner, processStartTime } from "./owner.ts";
export { announceWorker, findCellOwner } from "./presence.ts";
export { hostCpuTimes } from "./proc.ts";
export { reconcileCells } from "./reconcile.ts";
export { CellCancelled, type CellDeps, CellNotStarted, finishCell, runCell } from "./run-cell.ts";
export { ORPHANED_CELL } from "./runtime.ts";
export { Fixtures } from "./stages/fixtures.ts";
export { waitForHealthy } from "./stages/health.ts";
export type { K6Result, K6Run, K6Runner } from "./stages/k6.ts";
export { PointSink } from "./stages/points.ts";
