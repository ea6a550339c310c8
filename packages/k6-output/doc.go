// Package k6output is a k6 output extension (`--out perflab=<path>`) that
// aggregates samples per wall-clock second in-process and writes NDJSON lines
// with HDR latency histograms, far cheaper for k6 than `--out json`.
package k6output
