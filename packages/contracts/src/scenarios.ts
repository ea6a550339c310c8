// The scenarios (one module each, listed in its registry), their catalog and parameter schemas live
// with the k6 scripts in @perflab/scenarios.
export * from "@perflab/scenarios";
