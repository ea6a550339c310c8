package k6output

import (
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"go.k6.io/k6/metrics"
)

// Histogram bounds in microseconds: 1 µs to one hour, 3 significant digits.
const (
	histLowest  int64 = 1
	histHighest int64 = 3_600_000_000
	histDigits        = 3
)

// groupKey is the per-request identity the consumer charts by.
type groupKey struct {
	Phase  string
	Method string
	Tool   string
}

type groupAgg struct {
	requests int64
	failed   int64
	opErrors int64
	// timeouts are the failed requests that hit the client's timeout (k6 error_code 1050).
	timeouts int64
	hist     *hdrhistogram.Histogram
}

// secondAgg holds one wall-clock second; groups is indexed by group id so the
// hot path does a slice access instead of a map lookup.
type secondAgg struct {
	t            int64
	groups       []*groupAgg
	iterations   int64
	dropped      int64
	dataSent     int64
	dataReceived int64
	vus          int64
}

type metricKind uint8

const (
	kindOther metricKind = iota
	kindDuration
	kindReqs
	kindFailed
	kindDataSent
	kindDataReceived
	kindIterations
	kindDropped
	kindVUs
	kindOpErrors
	kindTestStart
)

// TestStartMetric is the gauge perflab's scripts add once per VU, at its first
// iteration: the Unix time in ms at which k6's test run began (after every VU
// was initialised), the instant the scripts' phase tag counts the warm-up from.
const TestStartMetric = "perflab_test_start"

func kindOf(name string) metricKind {
	switch name {
	case "http_req_duration":
		return kindDuration
	case "http_reqs":
		return kindReqs
	case "http_req_failed":
		return kindFailed
	case "data_sent":
		return kindDataSent
	case "data_received":
		return kindDataReceived
	case "iterations":
		return kindIterations
	case "dropped_iterations":
		return kindDropped
	case "vus":
		return kindVUs
	case "mcp_op_errors":
		return kindOpErrors
	case TestStartMetric:
		return kindTestStart
	}
	return kindOther
}

// aggregator is not safe for concurrent use; Output serialises access.
type aggregator struct {
	seconds map[int64]*secondAgg
	cur     *secondAgg

	// TagSets are interned atlas nodes, so the pointer identifies the tag
	// combination and the tag walk happens once per distinct set.
	tagGroups map[*metrics.TagSet]int
	keys      []groupKey
	keyIDs    map[groupKey]int

	kinds map[*metrics.Metric]metricKind

	// testStartMs is the first perflab_test_start value seen (0: none yet);
	// runTaken says it was handed to the writer.
	testStartMs int64
	runTaken    bool

	freeHists []*hdrhistogram.Histogram
}

func newAggregator() *aggregator {
	return &aggregator{
		seconds:   make(map[int64]*secondAgg, 8),
		tagGroups: make(map[*metrics.TagSet]int, 64),
		keyIDs:    make(map[groupKey]int, 8),
		kinds:     make(map[*metrics.Metric]metricKind, 32),
	}
}

func (a *aggregator) addContainers(containers []metrics.SampleContainer) {
	for _, c := range containers {
		samples := c.GetSamples()
		for i := range samples {
			a.add(&samples[i])
		}
	}
}

func (a *aggregator) add(s *metrics.Sample) {
	kind, ok := a.kinds[s.Metric]
	if !ok {
		kind = kindOf(s.Metric.Name)
		a.kinds[s.Metric] = kind
	}
	if kind == kindOther {
		return
	}
	if kind == kindTestStart {
		// Not a second's data: every VU reports the same instant; the first one counts.
		if a.testStartMs == 0 && s.Value > 0 {
			a.testStartMs = int64(s.Value + 0.5)
		}
		return
	}
	sec := a.second(s.Time.Unix())
	switch kind {
	case kindDuration:
		g := a.group(sec, s.Tags)
		if g.hist == nil {
			g.hist = a.newHist()
		}
		_ = g.hist.RecordValue(toMicros(s.Value))
	case kindReqs:
		a.group(sec, s.Tags).requests += int64(s.Value)
	case kindFailed:
		if s.Value != 0 {
			g := a.group(sec, s.Tags)
			g.failed++
			if isTimeout(s.Tags) {
				g.timeouts++
			}
		} else {
			// Touch the group so a second with only successes still lists it.
			a.group(sec, s.Tags)
		}
	case kindOpErrors:
		// JSON-RPC errors and isError results arrive as HTTP 200: without this they would be invisible.
		a.group(sec, s.Tags).opErrors += int64(s.Value)
	case kindDataSent:
		sec.dataSent += int64(s.Value)
	case kindDataReceived:
		sec.dataReceived += int64(s.Value)
	case kindIterations:
		sec.iterations += int64(s.Value)
	case kindDropped:
		// Per second, so the consumer can leave out the warm-up's drops.
		sec.dropped += int64(s.Value)
	case kindVUs:
		if v := int64(s.Value); v > sec.vus {
			sec.vus = v
		}
	}
}

// k6's error code of a request that hit its `timeout` param (the scripts' TIMEOUT_MS).
const timeoutErrorCode = "1050"

func isTimeout(tags *metrics.TagSet) bool {
	if tags == nil {
		return false
	}
	code, ok := tags.Get("error_code")
	return ok && code == timeoutErrorCode
}

func toMicros(ms float64) int64 {
	us := int64(ms*1000 + 0.5)
	if us < 0 {
		return 0
	}
	if us > histHighest {
		return histHighest
	}
	return us
}

func (a *aggregator) second(t int64) *secondAgg {
	if a.cur != nil && a.cur.t == t {
		return a.cur
	}
	sec, ok := a.seconds[t]
	if !ok {
		sec = &secondAgg{t: t, groups: make([]*groupAgg, len(a.keys))}
		a.seconds[t] = sec
	}
	a.cur = sec
	return sec
}

func (a *aggregator) group(sec *secondAgg, tags *metrics.TagSet) *groupAgg {
	id, ok := a.tagGroups[tags]
	if !ok {
		id = a.groupID(tags)
		a.tagGroups[tags] = id
	}
	for id >= len(sec.groups) {
		sec.groups = append(sec.groups, nil)
	}
	g := sec.groups[id]
	if g == nil {
		g = &groupAgg{}
		sec.groups[id] = g
	}
	return g
}

func (a *aggregator) groupID(tags *metrics.TagSet) int {
	var k groupKey
	if tags != nil {
		k.Phase, _ = tags.Get("phase")
		k.Method, _ = tags.Get("method")
		k.Tool, _ = tags.Get("tool")
	}
	id, ok := a.keyIDs[k]
	if !ok {
		id = len(a.keys)
		a.keys = append(a.keys, k)
		a.keyIDs[k] = id
	}
	return id
}

func (a *aggregator) newHist() *hdrhistogram.Histogram {
	if n := len(a.freeHists); n > 0 {
		h := a.freeHists[n-1]
		a.freeHists = a.freeHists[:n-1]
		return h
	}
	return hdrhistogram.New(histLowest, histHighest, histDigits)
}

// maxFreeHists bounds the pool; each histogram holds ~190 KB of counters.
const maxFreeHists = 32

// recycle returns the histograms of written seconds to the pool, so a steady
// run allocates no new counters arrays.
func (a *aggregator) recycle(secs []*secondAgg) {
	for _, sec := range secs {
		for _, g := range sec.groups {
			if g == nil || g.hist == nil {
				continue
			}
			if len(a.freeHists) < maxFreeHists {
				g.hist.Reset()
				a.freeHists = append(a.freeHists, g.hist)
			}
			g.hist = nil
		}
	}
}

// takeRun returns the test run's start once, when it is known.
func (a *aggregator) takeRun() (int64, bool) {
	if a.runTaken || a.testStartMs == 0 {
		return 0, false
	}
	a.runTaken = true
	return a.testStartMs, true
}

// take detaches every second strictly before `before` (all when all is true),
// oldest first.
func (a *aggregator) take(before int64, all bool) []*secondAgg {
	var out []*secondAgg
	for t, sec := range a.seconds {
		if all || t < before {
			out = append(out, sec)
			delete(a.seconds, t)
			if a.cur == sec {
				a.cur = nil
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].t < out[j].t })
	return out
}
