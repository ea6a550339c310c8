package lifecycle

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// A request in flight when the context ends is answered before Serve returns.
func TestServeFinishesInFlightRequestsThenStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(200 * time.Millisecond)
		w.Write([]byte("done"))
	})}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, srv, ln, srv.Shutdown) }()
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String())
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-started
	stop()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("the request in flight got %d", code)
	}
}

func TestServeReturnsWhenTheServerFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	srv := &http.Server{}
	if err := Serve(context.Background(), srv, ln, srv.Shutdown); err == nil {
		t.Fatal("Serve on a closed listener returned nil")
	}
}
