// Package sse is a k6 JavaScript module (`k6/x/perflab-sse`) that holds Server-Sent Events streams
// open without a VU each: `hold(url, options)` returns a promise, so one VU can hold hundreds of
// streams at once and a storm of 10,000 needs no 10,000 VUs (each of those costs megabytes in k6).
package sse

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/js/modules"
	"go.k6.io/k6/js/promises"
)

func init() {
	modules.Register("k6/x/perflab-sse", new(rootModule))
}

type rootModule struct{}

// module is one VU's instance; its client opens one connection per stream, never pooled.
type module struct {
	vu     modules.VU
	client *http.Client
}

func (*rootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	transport := &http.Transport{
		DialContext:       (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
		DisableKeepAlives: true,
		// A stream's header must come within the hold; after it the stream may stay silent.
		ResponseHeaderTimeout: 0,
	}
	return &module{vu: vu, client: &http.Client{Transport: transport}}
}

func (m *module) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{"hold": m.hold}}
}

// Options of one hold, as the script passes them.
type Options struct {
	Headers map[string]string `js:"headers"`
	HoldMs  int64             `js:"holdMs"`
}

// Result is what a hold resolves to. EndedBy says why the stream closed: "hold" (our own timer, the
// normal end), "closed" (the server ended it early: a drop), "error" (it never opened, or broke),
// "status" (not a 200 text/event-stream answer) or "stopped" (k6 ended the iteration).
type Result struct {
	Status       int     `js:"status"`
	OpenMs       float64 `js:"openMs"`
	FirstEventMs float64 `js:"firstEventMs"`
	FirstEvent   string  `js:"firstEvent"`
	FirstData    string  `js:"firstData"`
	Events       int     `js:"events"`
	EndedBy      string  `js:"endedBy"`
	Error        string  `js:"error"`
}

func (m *module) hold(url string, opts Options) *sobek.Promise {
	promise, resolve, _ := promises.New(m.vu)
	// The VU's context ends when k6 stops the scenario: no stream outlives its run.
	ctx := m.vu.Context()
	go func() { resolve(m.run(ctx, url, opts)) }()
	return promise
}

func (m *module) run(parent context.Context, url string, opts Options) Result {
	result := Result{FirstEventMs: -1}
	holdCtx, cancel := context.WithTimeout(parent, time.Duration(opts.HoldMs)*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(holdCtx, http.MethodGet, url, nil)
	if err != nil {
		return ended(result, "error", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for name, value := range opts.Headers {
		req.Header.Set(name, value)
	}
	start := time.Now()
	res, err := m.client.Do(req)
	if err != nil {
		return ended(result, endReason(holdCtx, parent, "error"), err)
	}
	defer res.Body.Close()
	result.Status = res.StatusCode
	result.OpenMs = sinceMs(start)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		return ended(result, "status", nil)
	}
	return readEvents(holdCtx, parent, res, start, result)
}

// readEvents counts the stream's events until the hold ends or the server closes it. An event is a
// block ended by a blank line (a comment-only block, such as a keep-alive `: ping`, is not one).
func readEvents(holdCtx, parent context.Context, res *http.Response, start time.Time, result Result) Result {
	scanner := bufio.NewScanner(res.Body)
	scanner.Buffer(make([]byte, 0, 4096), 1<<20)
	name, data, fields := "", "", 0
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case line == "":
			if fields > 0 {
				if result.Events == 0 {
					result.FirstEventMs, result.FirstEvent, result.FirstData = sinceMs(start), eventName(name), data
				}
				result.Events++
			}
			name, data, fields = "", "", 0
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			name, fields = strings.TrimSpace(line[6:]), fields+1
		case strings.HasPrefix(line, "data:"):
			data, fields = data+strings.TrimPrefix(line[5:], " "), fields+1
		default:
			fields++
		}
	}
	// Our own timer (or k6's stop) ending the read is the normal end; anything else is a drop.
	return ended(result, endReason(holdCtx, parent, "closed"), filterCanceled(scanner.Err()))
}

func endReason(holdCtx, parent context.Context, otherwise string) string {
	switch {
	case parent.Err() != nil:
		return "stopped"
	case holdCtx.Err() != nil:
		return "hold"
	default:
		return otherwise
	}
}

func filterCanceled(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

func ended(result Result, by string, err error) Result {
	result.EndedBy = by
	if err != nil && by != "hold" && by != "stopped" {
		result.Error = err.Error()
	}
	return result
}

func eventName(name string) string {
	if name == "" {
		return "message"
	}
	return name
}

func sinceMs(start time.Time) float64 {
	return float64(time.Since(start).Microseconds()) / 1000
}
