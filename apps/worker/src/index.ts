export { runCell } from "./run-cell.ts";
export { startRuntime } from "./runtime.ts";
