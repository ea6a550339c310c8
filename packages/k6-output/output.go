package k6output

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/sirupsen/logrus"
	"go.k6.io/k6/metrics"
	"go.k6.io/k6/output"
)

// Name is the value given to k6's --out flag: `--out perflab=<path>`.
const Name = "perflab"

const flushPeriod = time.Second

// grace keeps a just-ended second open a little longer: k6 hands samples to
// outputs in 50 ms batches, so writing at once would split most seconds.
const grace = 250 * time.Millisecond

func init() {
	output.RegisterExtension(Name, New)
}

// Output aggregates k6 samples per second and (phase, method, tool) and writes
// one NDJSON line per finished second. See README.md for the format.
type Output struct {
	path   string
	logger logrus.FieldLogger
	now    func() time.Time

	mu  sync.Mutex // guards agg; held only for cheap bookkeeping, never for I/O
	agg *aggregator

	writeMu   sync.Mutex // serialises writes of the flusher and Stop
	file      *os.File
	writeErr  error
	flusher   *output.PeriodicFlusher
	k6Version string
}

var _ output.Output = (*Output)(nil)

// New is the constructor k6 calls for `--out perflab=<path>`.
func New(p output.Params) (output.Output, error) {
	path := strings.TrimSpace(p.ConfigArgument)
	if path == "" {
		return nil, errors.New("perflab output needs a path: --out perflab=<file|fifo|/dev/fd/N>")
	}
	return newOutput(path, p.Logger, time.Now), nil
}

func newOutput(path string, logger logrus.FieldLogger, now func() time.Time) *Output {
	if logger == nil {
		logger = logrus.StandardLogger()
	}
	return &Output{
		path:      path,
		logger:    logger.WithField("output", Name),
		now:       now,
		agg:       newAggregator(),
		k6Version: k6Version(),
	}
}

// Description is shown by `k6 run` next to "output:".
func (o *Output) Description() string {
	return fmt.Sprintf("%s (%s)", Name, o.path)
}

// Start opens the target and writes the start line. Opening a FIFO blocks
// until a reader is present, which is the consumer's contract.
func (o *Output) Start() error {
	f, err := os.OpenFile(o.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("perflab output: open %s: %w", o.path, err)
	}
	o.file = f
	if err := o.writeLine(startLine{Type: "start", T: o.now().UnixMilli(), K6: o.k6Version}); err != nil {
		_ = f.Close()
		return err
	}
	o.flusher, err = output.NewPeriodicFlusher(flushPeriod, o.flush)
	return err
}

// AddMetricSamples aggregates in place: k6 calls it from one goroutine and
// the work per sample is a few map and slice accesses, cheaper than
// buffering the containers for the flusher.
func (o *Output) AddMetricSamples(containers []metrics.SampleContainer) {
	o.mu.Lock()
	o.agg.addContainers(containers)
	o.mu.Unlock()
}

// Stop writes every remaining second, then the end line.
func (o *Output) Stop() error {
	if o.flusher != nil {
		o.flusher.Stop()
	}
	o.writeSeconds(0, true)
	err := o.writeLine(endLine{Type: "end"})
	if cerr := o.file.Close(); err == nil {
		err = cerr
	}
	return err
}

func (o *Output) flush() {
	before := o.now().Add(-grace).Unix()
	o.writeSeconds(before, false)
}

func (o *Output) writeSeconds(before int64, all bool) {
	o.mu.Lock()
	// In the same critical section as the seconds: every request sample of a VU
	// follows its test-start sample, so the run line precedes them all.
	runT, hasRun := o.agg.takeRun()
	secs := o.agg.take(before, all)
	keys := o.agg.keys
	o.mu.Unlock()
	if hasRun {
		if err := o.writeLine(runLine{Type: "run", T: runT}); err != nil {
			o.reportError(err)
		}
	}
	if len(secs) == 0 {
		return
	}
	for _, sec := range secs {
		line, err := encodeInterval(sec, keys)
		if err == nil {
			err = o.writeRaw(line)
		}
		if err != nil {
			o.reportError(err)
		}
	}
	o.mu.Lock()
	o.agg.recycle(secs)
	o.mu.Unlock()
}

type startLine struct {
	Type string `json:"type"`
	T    int64  `json:"t"`
	K6   string `json:"k6"`
}

// runLine says when k6's test run began: after VU initialisation, which the
// start line precedes by up to seconds at thousands of VUs.
type runLine struct {
	Type string `json:"type"`
	T    int64  `json:"t"`
}

type endLine struct {
	Type string `json:"type"`
}

type intervalLine struct {
	Type         string       `json:"type"`
	T            int64        `json:"t"`
	Groups       []groupEntry `json:"groups"`
	Iterations   int64        `json:"iterations"`
	Dropped      int64        `json:"dropped"`
	DataSent     int64        `json:"dataSent"`
	DataReceived int64        `json:"dataReceived"`
	VUs          int64        `json:"vus"`
}

type groupEntry struct {
	Phase    string `json:"phase"`
	Method   string `json:"method"`
	Tool     string `json:"tool"`
	Requests int64  `json:"requests"`
	Failed   int64  `json:"failed"`
	OpErrors int64  `json:"opErrors"`
	// Timeouts are counted in Failed too; left out when 0, as older lines had none.
	Timeouts int64  `json:"timeouts,omitempty"`
	Hist     string `json:"hist"`
}

// emptyHist is the encoding of a histogram with no values, for groups that
// counted requests in a second whose durations landed in another one.
var emptyHist = func() string {
	b, err := hdrhistogram.New(histLowest, histHighest, histDigits).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func encodeInterval(sec *secondAgg, keys []groupKey) ([]byte, error) {
	line := intervalLine{
		Type:         "interval",
		T:            sec.t,
		Groups:       make([]groupEntry, 0, len(sec.groups)),
		Iterations:   sec.iterations,
		Dropped:      sec.dropped,
		DataSent:     sec.dataSent,
		DataReceived: sec.dataReceived,
		VUs:          sec.vus,
	}
	for id, g := range sec.groups {
		if g == nil {
			continue
		}
		k := keys[id]
		e := groupEntry{Phase: k.Phase, Method: k.Method, Tool: k.Tool, Requests: g.requests, Failed: g.failed, OpErrors: g.opErrors, Timeouts: g.timeouts, Hist: emptyHist}
		if g.hist != nil {
			b, err := g.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				return nil, err
			}
			e.Hist = string(b)
		}
		line.Groups = append(line.Groups, e)
	}
	sort.Slice(line.Groups, func(i, j int) bool {
		a, b := line.Groups[i], line.Groups[j]
		if a.Phase != b.Phase {
			return a.Phase < b.Phase
		}
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		return a.Tool < b.Tool
	})
	b, err := json.Marshal(line)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func (o *Output) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return o.writeRaw(append(b, '\n'))
}

// writeRaw issues one write per line, so a reader of a pipe sees whole lines
// as soon as the flush happens (pipe writes up to 4 KiB are atomic too).
func (o *Output) writeRaw(b []byte) error {
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	_, err := o.file.Write(b)
	return err
}

// reportError logs the first write failure only: a consumer that went away
// must not flood k6's log once per second.
func (o *Output) reportError(err error) {
	o.writeMu.Lock()
	first := o.writeErr == nil
	if first {
		o.writeErr = err
	}
	o.writeMu.Unlock()
	if first {
		o.logger.WithError(err).Error("perflab output: write failed; further errors are not logged")
	}
}

// k6Version reads the linked k6 module's version, since k6 keeps its own
// version constant in an internal package.
func k6Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "go.k6.io/k6" {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			return strings.TrimPrefix(dep.Version, "v")
		}
	}
	return "unknown"
}
