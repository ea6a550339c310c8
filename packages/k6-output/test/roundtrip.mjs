// Decodes histograms produced by hdrhistogram-go with hdr-histogram-js, the
// library the worker uses, and fails on any mismatch.
// Usage: HDR_JS=/path/to/node_modules/hdr-histogram-js node test/roundtrip.mjs [out.ndjson]
// With a file written by `k6 run --out perflab=<file>`, every group's histogram
// must also decode and hold exactly `requests` values.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const hdr = require(process.env.HDR_JS ?? "hdr-histogram-js");

const fixtures = JSON.parse(
  execFileSync("go", ["run", "./test/roundtrip"], {
    cwd: join(here, ".."),
    env: { ...process.env, GOFLAGS: "-mod=mod" },
    encoding: "utf8",
  }),
);

let passed = 0;
let failed = 0;
for (const f of fixtures) {
  const problems = [];
  const h = hdr.decodeFromCompressedBase64(f.hist);
  const check = (what, got, want) => {
    if (got !== want) problems.push(`${what}: got ${got}, want ${want}`);
  };
  check("totalCount", h.totalCount, f.totalCount);
  check("lowestDiscernibleValue", h.lowestDiscernibleValue, 1);
  check("highestTrackableValue", h.highestTrackableValue, 3_600_000_000);
  check("numberOfSignificantValueDigits", h.numberOfSignificantValueDigits, 3);
  if (f.totalCount > 0) {
    check("min", h.minNonZeroValue, f.min);
    check("max", h.maxValue, f.max);
    for (const [p, want] of Object.entries(f.percentiles)) {
      // Both libraries report the highest equivalent value of the bucket.
      check(`p${p}`, h.getValueAtPercentile(Number(p)), want);
    }
  }
  // Re-encoding in JS and decoding again must be stable too.
  const again = hdr.decodeFromCompressedBase64(hdr.encodeIntoCompressedBase64(h));
  check("re-encoded totalCount", again.totalCount, f.totalCount);
  if (problems.length === 0) {
    passed++;
    console.log(`ok ${f.name} (count ${f.totalCount})`);
  } else {
    failed++;
    console.log(`FAIL ${f.name}\n  ${problems.join("\n  ")}`);
  }
}
const file = process.argv[2];
if (file) {
  let groups = 0;
  const problems = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    const msg = JSON.parse(line);
    if (msg.type !== "interval") continue;
    for (const g of msg.groups) {
      groups++;
      const count = hdr.decodeFromCompressedBase64(g.hist).totalCount;
      if (count !== g.requests)
        problems.push(`t=${msg.t} ${g.method} ${g.tool}: ${count} values, ${g.requests} requests`);
    }
  }
  if (groups > 0 && problems.length === 0) {
    passed++;
    console.log(`ok ${file}: ${groups} group histograms match their request counts`);
  } else {
    failed++;
    console.log(`FAIL ${file}: ${groups} groups\n  ${problems.join("\n  ")}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
