package sse

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// stream answers as an SSE server, writes body, then holds the stream for holdFor (or closes it).
func stream(body string, holdFor time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, body)
		w.(http.Flusher).Flush()
		select {
		case <-time.After(holdFor):
		case <-r.Context().Done():
		}
	}
}

func holdOn(t *testing.T, ctx context.Context, handler http.Handler, holdMs int64) Result {
	t.Helper()
	server := httptest.NewServer(handler)
	defer server.Close()
	m := &module{client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	return m.run(ctx, server.URL, Options{HoldMs: holdMs})
}

func TestHeldStreamTimesItsFirstEventAndEndsByTheHold(t *testing.T) {
	body := ": keep-alive comments are not events\n\nevent: endpoint\ndata: /message?sessionId=1\n\ndata: two\n\n"
	got := holdOn(t, context.Background(), stream(body, time.Minute), 300)
	if got.Status != 200 || got.EndedBy != "hold" || got.Error != "" {
		t.Fatalf("want a 200 stream ended by the hold, got %+v", got)
	}
	if got.FirstEvent != "endpoint" || got.FirstData != "/message?sessionId=1" || got.Events != 2 {
		t.Fatalf("want the endpoint event first and two events, got %+v", got)
	}
	if got.FirstEventMs < got.OpenMs || got.OpenMs <= 0 {
		t.Fatalf("want the first event after the response, got open %v first %v", got.OpenMs, got.FirstEventMs)
	}
}

func TestStreamTheServerEndsIsDroppedAndASilentOneHasNoFirstEvent(t *testing.T) {
	got := holdOn(t, context.Background(), stream("", 50*time.Millisecond), 5_000)
	if got.Status != 200 || got.EndedBy != "closed" || got.FirstEventMs != -1 || got.Events != 0 {
		t.Fatalf("want a silent stream closed by the server, got %+v", got)
	}
}

func TestAnswerThatIsNoStreamEndsByItsStatus(t *testing.T) {
	got := holdOn(t, context.Background(), http.NotFoundHandler(), 1_000)
	if got.Status != 404 || got.EndedBy != "status" {
		t.Fatalf("want a 404 ended by its status, got %+v", got)
	}
}

func TestStreamThatCannotOpenIsAnErrorAndOneK6StopsIsStopped(t *testing.T) {
	m := &module{client: &http.Client{}}
	got := m.run(context.Background(), "http://127.0.0.1:1/", Options{HoldMs: 1_000})
	if got.EndedBy != "error" || got.Error == "" {
		t.Fatalf("want a connection error, got %+v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	got = holdOn(t, ctx, stream("", time.Minute), 5_000)
	if got.EndedBy != "stopped" || got.Error != "" {
		t.Fatalf("want a stream stopped with its iteration, got %+v", got)
	}
}
