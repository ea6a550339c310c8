export * from "./jobs.ts";
export * from "./k6-output.ts";
export * from "./live.ts";
export * from "./matrix.ts";
export * from "./problem.ts";
export * from "./scenarios.ts";
export * from "./server-manifest.ts";
