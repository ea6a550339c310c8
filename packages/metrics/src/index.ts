export * from "./cell-aggregator.ts";
export * from "./connection-storm.ts";
export * from "./histogram.ts";
export * from "./ingest/index.ts";
export * from "./records.ts";
export * from "./rollups.ts";
export * from "./runtime-gc.ts";
export * from "./stats.ts";
