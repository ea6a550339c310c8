package k6output

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"go.k6.io/k6/metrics"
	"go.k6.io/k6/output"
)

type fixture struct {
	reg     *metrics.Registry
	builtin *metrics.BuiltinMetrics
	custom  *metrics.Metric
	opErrs  *metrics.Metric
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	reg := metrics.NewRegistry()
	return &fixture{
		reg:     reg,
		builtin: metrics.RegisterBuiltinMetrics(reg),
		custom:  reg.MustNewMetric("unrelated_counter", metrics.Counter),
		opErrs:  reg.MustNewMetric("mcp_op_errors", metrics.Counter),
	}
}

func (f *fixture) tags(kv ...string) *metrics.TagSet {
	ts := f.reg.RootTagSet()
	for i := 0; i < len(kv); i += 2 {
		ts = ts.With(kv[i], kv[i+1])
	}
	return ts
}

func sample(m *metrics.Metric, tags *metrics.TagSet, at time.Time, v float64) metrics.Sample {
	return metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: at, Value: v}
}

// request mimics the samples k6 emits for one HTTP request.
func (f *fixture) request(tags *metrics.TagSet, at time.Time, durMs float64, failed bool) metrics.SampleContainer {
	fv := 0.0
	if failed {
		fv = 1
	}
	return metrics.ConnectedSamples{Tags: tags, Time: at, Samples: []metrics.Sample{
		sample(f.builtin.HTTPReqs, tags, at, 1),
		sample(f.builtin.HTTPReqDuration, tags, at, durMs),
		sample(f.builtin.HTTPReqWaiting, tags, at, durMs/2),
		sample(f.builtin.HTTPReqFailed, tags, at, fv),
	}}
}

type interval struct {
	Type   string `json:"type"`
	T      int64  `json:"t"`
	K6     string `json:"k6"`
	Groups []struct {
		Phase, Method, Tool                  string
		Requests, Failed, OpErrors, Timeouts int64
		Hist                                 string
	} `json:"groups"`
	Iterations   int64 `json:"iterations"`
	Dropped      int64 `json:"dropped"`
	DataSent     int64 `json:"dataSent"`
	DataReceived int64 `json:"dataReceived"`
	VUs          int64 `json:"vus"`
}

func readLines(t *testing.T, path string) []interval {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []interval
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l interval
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func decode(t *testing.T, s string) *hdrhistogram.Histogram {
	t.Helper()
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		t.Fatalf("decode histogram: %v", err)
	}
	return h
}

func TestGroupsRequestsBySecondAndPhaseMethodTool(t *testing.T) {
	f := newFixture(t)
	base := time.Unix(1_700_000_000, 0)
	call := f.tags("phase", "measure", "method", "tools/call", "tool", "echo", "status", "200")
	call500 := f.tags("phase", "measure", "method", "tools/call", "tool", "echo", "status", "500")
	initTags := f.tags("phase", "warmup", "method", "initialize")

	a := newAggregator()
	a.addContainers([]metrics.SampleContainer{
		f.request(call, base.Add(100*time.Millisecond), 1.5, false),
		f.request(call500, base.Add(900*time.Millisecond), 2.5, true),
		f.request(initTags, base.Add(200*time.Millisecond), 10, false),
		f.request(call, base.Add(1100*time.Millisecond), 3, false),
	})

	secs := a.take(base.Unix()+1, false)
	if len(secs) != 1 || secs[0].t != base.Unix() {
		t.Fatalf("want only second %d, got %d seconds", base.Unix(), len(secs))
	}
	line, err := encodeInterval(secs[0], a.keys)
	if err != nil {
		t.Fatal(err)
	}
	var got interval
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 2 {
		t.Fatalf("want 2 groups (status tag must not split them), got %+v", got.Groups)
	}
	// Sorted by phase: measure before warmup.
	m, w := got.Groups[0], got.Groups[1]
	if m.Phase != "measure" || m.Method != "tools/call" || m.Tool != "echo" || m.Requests != 2 || m.Failed != 1 {
		t.Errorf("measure group = %+v", m)
	}
	if w.Phase != "warmup" || w.Method != "initialize" || w.Tool != "" || w.Requests != 1 || w.Failed != 0 {
		t.Errorf("warmup group = %+v", w)
	}
	h := decode(t, m.Hist)
	if h.TotalCount() != 2 || h.Min() != 1500 || !h.ValuesAreEquivalent(h.Max(), 2500) {
		t.Errorf("measure histogram count=%d min=%d max=%d, want 2 values 1500 and 2500 µs", h.TotalCount(), h.Min(), h.Max())
	}
	if h.LowestTrackableValue() != histLowest || h.HighestTrackableValue() != histHighest || h.SignificantFigures() != histDigits {
		t.Errorf("histogram bounds %d..%d/%d", h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures())
	}

	rest := a.take(0, true)
	if len(rest) != 1 || rest[0].t != base.Unix()+1 {
		t.Fatalf("the next second must still be pending, got %d", len(rest))
	}
}

func TestSumsPerSecondCountersAndKeepsMaxVUs(t *testing.T) {
	f := newFixture(t)
	base := time.Unix(1_700_000_000, 0)
	root := f.tags("scenario", "default")
	at := base.Add(300 * time.Millisecond)
	a := newAggregator()
	a.addContainers([]metrics.SampleContainer{metrics.Samples{
		sample(f.builtin.DataSent, root, at, 100),
		sample(f.builtin.DataSent, root, at, 50),
		sample(f.builtin.DataReceived, root, at, 700),
		sample(f.builtin.Iterations, root, at, 1),
		sample(f.builtin.Iterations, root, at, 1),
		sample(f.builtin.DroppedIterations, root, at, 1),
		sample(f.builtin.VUs, root, at, 7),
		sample(f.builtin.VUs, root, at, 9),
		sample(f.builtin.VUs, root, at, 3),
		sample(f.custom, root, at, 5),
	}})
	secs := a.take(0, true)
	if len(secs) != 1 {
		t.Fatalf("want 1 second, got %d", len(secs))
	}
	s := secs[0]
	if s.dataSent != 150 || s.dataReceived != 700 || s.iterations != 2 || s.dropped != 1 || s.vus != 9 {
		t.Errorf("got sent=%d received=%d iterations=%d dropped=%d vus=%d", s.dataSent, s.dataReceived, s.iterations, s.dropped, s.vus)
	}
	line, err := encodeInterval(s, a.keys)
	if err != nil {
		t.Fatal(err)
	}
	var got interval
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if got.Groups == nil || len(got.Groups) != 0 {
		t.Errorf("a second without requests must have an empty groups array, got %s", line)
	}
}

func TestConvertsMillisecondsToMicrosecondsWithinBounds(t *testing.T) {
	cases := map[float64]int64{0.0004: 0, 0.0016: 2, 1.234: 1234, -1: 0, 1e12: histHighest}
	for ms, want := range cases {
		if got := toMicros(ms); got != want {
			t.Errorf("toMicros(%v) = %d, want %d", ms, got, want)
		}
	}
}

func TestRecyclesHistogramsCleared(t *testing.T) {
	f := newFixture(t)
	tags := f.tags("phase", "measure", "method", "tools/call", "tool", "echo")
	a := newAggregator()
	a.addContainers([]metrics.SampleContainer{f.request(tags, time.Unix(10, 0), 5, false)})
	secs := a.take(0, true)
	used := secs[0].groups[0].hist
	a.recycle(secs)
	a.addContainers([]metrics.SampleContainer{f.request(tags, time.Unix(11, 0), 7, false)})
	g := a.take(0, true)[0].groups[0]
	if g.hist != used {
		t.Fatal("expected the pooled histogram to be reused")
	}
	if g.hist.TotalCount() != 1 || !g.hist.ValuesAreEquivalent(g.hist.Max(), 7000) {
		t.Errorf("reused histogram carries old values: count=%d max=%d", g.hist.TotalCount(), g.hist.Max())
	}
}

func TestOutputWritesStartIntervalsLateLinesAndEnd(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(t.TempDir(), "out.ndjson")
	base := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	now := base.Add(500 * time.Millisecond)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setNow := func(v time.Time) { mu.Lock(); now = v; mu.Unlock() }

	o := newOutput(path, nil, clock)
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	tags := f.tags("phase", "measure", "method", "tools/call", "tool", "echo")
	o.AddMetricSamples([]metrics.SampleContainer{
		f.request(tags, base.Add(100*time.Millisecond), 1, false),
		f.request(tags, base.Add(1200*time.Millisecond), 2, false),
	})
	// 100 ms into the next second the finished one is still within grace.
	setNow(base.Add(1100 * time.Millisecond))
	o.flush()
	if n := len(readLines(t, path)); n != 1 {
		t.Fatalf("want only the start line before grace passes, got %d lines", n)
	}
	setNow(base.Add(1300 * time.Millisecond))
	o.flush()
	// A sample for the already written second arrives late.
	o.AddMetricSamples([]metrics.SampleContainer{f.request(tags, base.Add(999*time.Millisecond), 4, true)})
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}

	lines := readLines(t, path)
	if len(lines) != 5 {
		t.Fatalf("want start, 3 intervals, end; got %d lines: %+v", len(lines), lines)
	}
	if lines[0].Type != "start" || lines[0].T != base.Add(500*time.Millisecond).UnixMilli() || lines[0].K6 == "" {
		t.Errorf("start line = %+v", lines[0])
	}
	first, late, second := lines[1], lines[2], lines[3]
	if first.Type != "interval" || first.T != base.Unix() || first.Groups[0].Requests != 1 {
		t.Errorf("first interval = %+v", first)
	}
	if late.T != base.Unix() || late.Groups[0].Requests != 1 || late.Groups[0].Failed != 1 {
		t.Errorf("late line must repeat t=%d with only the late sample, got %+v", base.Unix(), late)
	}
	if second.T != base.Unix()+1 || !decode(t, second.Groups[0].Hist).ValuesAreEquivalent(decode(t, second.Groups[0].Hist).Max(), 2000) {
		t.Errorf("second interval = %+v", second)
	}
	if lines[4].Type != "end" {
		t.Errorf("last line = %+v", lines[4])
	}
}

func TestConstructorRequiresPath(t *testing.T) {
	if _, err := New(output.Params{ConfigArgument: " "}); err == nil {
		t.Fatal("want an error without a path")
	}
	out, err := New(output.Params{ConfigArgument: "/tmp/x.ndjson"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Description() != "perflab (/tmp/x.ndjson)" {
		t.Errorf("description = %q", out.Description())
	}
}

// BenchmarkAddRequest measures the per-request hot path k6 pays for.
func BenchmarkAddRequest(b *testing.B) {
	reg := metrics.NewRegistry()
	bm := metrics.RegisterBuiltinMetrics(reg)
	f := &fixture{reg: reg, builtin: bm}
	tags := f.tags("phase", "measure", "method", "tools/call", "tool", "echo", "status", "200")
	base := time.Unix(1_700_000_000, 0)
	a := newAggregator()
	c := []metrics.SampleContainer{f.request(tags, base, 1.2, false)}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a.addContainers(c)
	}
}

// BenchmarkEncodeSecond measures the once-per-second cost of one group.
func BenchmarkEncodeSecond(b *testing.B) {
	f := &fixture{reg: metrics.NewRegistry()}
	f.builtin = metrics.RegisterBuiltinMetrics(f.reg)
	tags := f.tags("phase", "measure", "method", "tools/call", "tool", "echo")
	a := newAggregator()
	base := time.Unix(1_700_000_000, 0)
	for i := 0; i < 5000; i++ {
		a.addContainers([]metrics.SampleContainer{f.request(tags, base, 0.2+float64(i%700)/100, false)})
	}
	sec := a.take(0, true)[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeInterval(sec, a.keys); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWritesDroppedIterationsInTheSecondTheyHappened(t *testing.T) {
	f := newFixture(t)
	base := time.Unix(1_700_000_000, 0)
	root := f.tags("scenario", "open")
	a := newAggregator()
	a.addContainers([]metrics.SampleContainer{metrics.Samples{
		sample(f.builtin.DroppedIterations, root, base.Add(100*time.Millisecond), 1),
		sample(f.builtin.DroppedIterations, root, base.Add(1900*time.Millisecond), 1),
		sample(f.builtin.DroppedIterations, root, base.Add(1950*time.Millisecond), 1),
		sample(f.builtin.Iterations, root, base.Add(2500*time.Millisecond), 1),
	}})
	var got []interval
	for _, sec := range a.take(0, true) {
		line, err := encodeInterval(sec, a.keys)
		if err != nil {
			t.Fatal(err)
		}
		var l interval
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	want := []int64{1, 2, 0}
	if len(got) != len(want) {
		t.Fatalf("want %d seconds, got %+v", len(want), got)
	}
	for i, l := range got {
		if l.T != base.Unix()+int64(i) || l.Dropped != want[i] {
			t.Errorf("second %d: t=%d dropped=%d, want t=%d dropped=%d", i, l.T, l.Dropped, base.Unix()+int64(i), want[i])
		}
	}
}

func TestCountsMCPOperationErrorsPerGroup(t *testing.T) {
	f := newFixture(t)
	at := time.Unix(1_700_000_000, 0)
	tags := f.tags("phase", "measure", "method", "tools/call", "tool", "echo")
	a := newAggregator()
	a.addContainers([]metrics.SampleContainer{metrics.Samples{
		sample(f.builtin.HTTPReqs, tags, at, 1),
		sample(f.builtin.HTTPReqs, tags, at, 1),
		sample(f.opErrs, tags, at, 1),
	}})
	secs := a.take(0, true)
	line, err := encodeInterval(secs[0], a.keys)
	if err != nil {
		t.Fatal(err)
	}
	var got interval
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 1 || got.Groups[0].Requests != 2 || got.Groups[0].OpErrors != 1 || got.Groups[0].Failed != 0 {
		t.Errorf("want one group with 2 requests, 1 MCP error and no HTTP failure, got %s", line)
	}
}

func TestWritesTheTestRunStartOnceBeforeTheSecondsItPrecedes(t *testing.T) {
	f := newFixture(t)
	startMetric := f.reg.MustNewMetric(TestStartMetric, metrics.Gauge)
	path := filepath.Join(t.TempDir(), "out.ndjson")
	base := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	now := base.Add(100 * time.Millisecond)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setNow := func(v time.Time) { mu.Lock(); now = v; mu.Unlock() }

	o := newOutput(path, nil, clock)
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	// VU initialisation took 1.7 s: only k6's own vus samples until then.
	o.AddMetricSamples([]metrics.SampleContainer{sample(f.builtin.VUs, f.tags(), base.Add(600*time.Millisecond), 0)})
	runStart := base.Add(1800 * time.Millisecond)
	tags := f.tags("phase", "warmup", "method", "tools/call", "tool", "echo")
	// Two VUs report the same start (a millisecond apart by their clocks); the first counts.
	o.AddMetricSamples([]metrics.SampleContainer{
		sample(startMetric, tags, runStart, float64(runStart.UnixMilli())),
		f.request(tags, base.Add(1900*time.Millisecond), 1, false),
		sample(startMetric, tags, runStart.Add(time.Millisecond), float64(runStart.UnixMilli()+1)),
		f.request(tags, base.Add(2100*time.Millisecond), 1, false),
	})
	setNow(base.Add(2300 * time.Millisecond))
	o.flush()
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}

	lines := readLines(t, path)
	var types []string
	for _, l := range lines {
		types = append(types, l.Type)
	}
	want := []string{"start", "run", "interval", "interval", "interval", "end"}
	if len(types) != len(want) {
		t.Fatalf("lines = %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("lines = %v, want %v", types, want)
		}
	}
	if lines[1].T != runStart.UnixMilli() {
		t.Errorf("run line t = %d, want %d", lines[1].T, runStart.UnixMilli())
	}
	// The gauge is no second's data: the interval lines hold the vus sample and the requests only.
	if lines[2].T != base.Unix() || len(lines[2].Groups) != 0 || lines[3].Groups[0].Requests != 1 || lines[4].Groups[0].Requests != 1 {
		t.Errorf("intervals = %+v", lines[2:5])
	}
}

func TestCountsRequestsThatHitTheClientTimeoutApartInTheirGroup(t *testing.T) {
	f := newFixture(t)
	at := time.Unix(1_700_000_000, 0)
	tags := f.tags("phase", "measure", "method", "GET", "tool", "/rest/time")
	timedOut := tags.With("error_code", "1050")
	refused := tags.With("error_code", "1211")
	a := newAggregator()
	a.addContainers([]metrics.SampleContainer{
		f.request(timedOut, at, 200, true),
		f.request(timedOut, at, 201, true),
		f.request(refused, at, 1, true),
		f.request(tags, at, 3, false),
	})
	secs := a.take(0, true)
	line, err := encodeInterval(secs[0], a.keys)
	if err != nil {
		t.Fatal(err)
	}
	var got interval
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 1 || got.Groups[0].Requests != 4 || got.Groups[0].Failed != 3 || got.Groups[0].Timeouts != 2 {
		t.Errorf("want one group of 4 requests, 3 failed, 2 of them timeouts, got %s", line)
	}
}
