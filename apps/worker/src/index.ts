export { createDockerDriver } from "./drivers/docker.ts";
export { localDriver } from "./drivers/local.ts";
export type { RunningServer } from "./drivers/types.ts";
export { runCell } from "./run-cell.ts";
export { startRuntime } from "./runtime.ts";
export { Fixtures } from "./stages/fixtures.ts";
export { waitForHealthy } from "./stages/health.ts";
