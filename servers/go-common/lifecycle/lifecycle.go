// Package lifecycle is a Go server's graceful stop (CONTRACT.md section 2): on SIGTERM, in-flight
// requests finish and the whole exit stays within the contract's 5 s.
package lifecycle

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

// Main runs a server's run with its log on stdout in UTC, and exits 1 naming run's error.
func Main(run func() error) {
	log.SetOutput(os.Stdout)
	log.SetFlags(log.LstdFlags | log.LUTC)
	if err := run(); err != nil {
		log.Printf("fatal: %v", err)
		os.Exit(1)
	}
}

// ShutdownBudget keeps the whole exit inside the contract's 5 s even when a handler is stuck.
const ShutdownBudget = 4500 * time.Millisecond

// Serve serves ln until srv fails or ctx ends (the caller's SIGTERM), then calls shutdown, which
// waits for in-flight requests; past ShutdownBudget the remaining connections are closed.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, shutdown func(context.Context) error) error {
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	log.Printf("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownBudget)
	defer cancel()
	if err := shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Printf("shutdown deadline reached, closing remaining connections: %v", err)
		srv.Close()
	}
	log.Printf("stopped")
	return nil
}
