// The scenario catalog and parameter schemas live with the k6 scripts in @perflab/scenarios.
export * from "@perflab/scenarios";
