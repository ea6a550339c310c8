package k6output

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.k6.io/k6/metrics"
)

// The TypeScript side reads the same file (packages/metrics/src/ingest/golden.test.ts): both ends of
// the format are checked against one set of lines. After a deliberate change of the format, rewrite
// it with `go test -run TestGolden -update` and update the TypeScript schema and test with it.
var update = flag.Bool("update", false, "rewrite testdata/golden.ndjson from the output")

const goldenPath = "testdata/golden.ndjson"

// goldenRun is a short test run: a warm-up second, two measured seconds with a failed call, an
// MCP operation error, a DELETE and dropped iterations, written as `k6 run --out perflab` writes it.
func goldenRun(f *fixture, startMetric *metrics.Metric, base time.Time) []metrics.SampleContainer {
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	warmInit := f.tags("phase", "warmup", "method", "initialize")
	warmCall := f.tags("phase", "warmup", "method", "tools/call", "tool", "echo")
	call := f.tags("phase", "measure", "method", "tools/call", "tool", "echo")
	del := f.tags("phase", "measure", "method", "DELETE")
	root := f.tags()
	runStart := at(-300)
	return []metrics.SampleContainer{
		sample(startMetric, warmCall, runStart, float64(runStart.UnixMilli())),
		sample(f.builtin.VUs, root, at(-200), 2),
		f.request(warmInit, at(100), 12.5, false),
		f.request(warmCall, at(300), 3.2, false),
		sample(f.builtin.Iterations, root, at(310), 1),
		sample(f.builtin.DataSent, root, at(310), 300),
		sample(f.builtin.DataReceived, root, at(310), 900),
		sample(f.builtin.VUs, root, at(900), 2),
		f.request(call, at(1100), 1.1, false),
		f.request(call, at(1400), 2.2, false),
		f.request(call, at(1700), 4.4, true),
		sample(f.opErrs, call, at(1701), 1),
		sample(f.builtin.Iterations, root, at(1702), 3),
		sample(f.builtin.DroppedIterations, root, at(1800), 2),
		sample(f.builtin.DataSent, root, at(1702), 450),
		sample(f.builtin.DataReceived, root, at(1702), 1350),
		sample(f.builtin.VUs, root, at(1900), 2),
		f.request(call, at(2100), 1.5, false),
		f.request(call, at(2600), 250, false),
		f.request(del, at(2700), 0.8, false),
		sample(f.builtin.Iterations, root, at(2701), 2),
		sample(f.builtin.DataSent, root, at(2701), 420),
		sample(f.builtin.DataReceived, root, at(2701), 1100),
		sample(f.builtin.VUs, root, at(2900), 1),
	}
}

func TestGoldenOutputMatchesTestdata(t *testing.T) {
	f := newFixture(t)
	startMetric := f.reg.MustNewMetric(TestStartMetric, metrics.Gauge)
	path := filepath.Join(t.TempDir(), "out.ndjson")
	base := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	now := base.Add(-1500 * time.Millisecond)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }

	o := newOutput(path, nil, clock)
	// The linked k6's version would change the file with every upgrade.
	o.k6Version = "1.8.1"
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	o.AddMetricSamples(goldenRun(f, startMetric, base))
	mu.Lock()
	now = base.Add(10 * time.Second)
	mu.Unlock()
	o.flush()
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (write it with go test -run TestGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the output no longer writes %s; if the format changed on purpose, rerun with -update and change the TypeScript side with it.\ngot:\n%s\nwant:\n%s", goldenPath, got, want)
	}
}
