// Command server is perflab's reference MCP server on the community SDK
// github.com/mark3labs/mcp-go (servers/CONTRACT.md), the Go library the studies measured.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"perflab/servers/go-common/env"
	"perflab/servers/go-common/lifecycle"
	"perflab/servers/go-common/runtimeinfo"
	"perflab/servers/go-common/validate"
)

type config struct {
	port         string
	stateless    bool
	jsonResponse bool
	legacySSE    bool
}

func loadConfig() (config, error) {
	var cfg config
	var err error
	if cfg.port, err = env.Port(); err != nil {
		return cfg, err
	}
	if cfg.stateless, err = env.Flag("MCP_STATELESS"); err != nil {
		return cfg, err
	}
	if cfg.jsonResponse, err = env.Flag("MCP_JSON_RESPONSE"); err != nil {
		return cfg, err
	}
	if cfg.legacySSE, err = env.Flag("MCP_LEGACY_SSE"); err != nil {
		return cfg, err
	}
	if cfg.legacySSE && cfg.stateless {
		return cfg, errors.New("MCP_LEGACY_SSE=1 requires stateful mode (MCP_STATELESS unset or 0): an SSE session is its stream")
	}
	return cfg, nil
}

func main() { lifecycle.Main(run) }

func run() error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	dv, err := validate.New()
	if err != nil {
		return fmt.Errorf("document schema: %w", err)
	}
	b := newBackends()
	defer b.Close()

	var sessions atomic.Int64
	mux := http.NewServeMux()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	mcpServer := newMCPServer(cfg, b, dv, &sessions)
	streamable := newStreamableHTTP(cfg, mcpServer, srv)
	mux.Handle("/mcp", mcpRoute(cfg, streamable))
	var legacy *server.SSEServer
	if cfg.legacySSE {
		legacy = legacySSE(mux, mcpServer)
	}
	plainRoutes(mux, b, func() runtimeinfo.Info {
		return runtimeinfo.ReadMCP(cfg.stateless, cfg.jsonResponse, func() int { return int(sessions.Load()) })
	})

	// Signals are caught before the start line: a SIGTERM sent right after it must shut down
	// gracefully, not meet the default action (exit by signal).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:"+cfg.port)
	if err != nil {
		return err
	}
	log.Printf("perflab go-mcp-go server listening on http://%s (stateless=%t json_response=%t legacy_sse=%t gomaxprocs=%d)",
		ln.Addr(), cfg.stateless, cfg.jsonResponse, cfg.legacySSE, runtimeinfo.Read().Parallelism)

	// mcp-go's Shutdown ends the GET streams (they never go idle) while http.Server.Shutdown waits
	// for in-flight POSTs.
	return lifecycle.Serve(ctx, srv, ln, func(sctx context.Context) error {
		if legacy != nil {
			legacy.CloseSessions()
		}
		return streamable.Shutdown(sctx)
	})
}
