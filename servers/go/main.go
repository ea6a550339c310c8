// Command server is perflab's Go reference MCP server (servers/CONTRACT.md),
// built on the official SDK github.com/modelcontextprotocol/go-sdk.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"perflab/servers/go-common/env"
	"perflab/servers/go-common/lifecycle"
	"perflab/servers/go-common/rest"
	"perflab/servers/go-common/runtimeinfo"
	"perflab/servers/go-common/upstream"
	"perflab/servers/go-common/validate"
)

// maxBodyBytes is the contract's request body limit (section 2): a 1 MiB echo
// message of control characters is 6 MiB once JSON-escaped; larger bodies get 413.
const maxBodyBytes = 8 << 20

// sdkOverlay is set by build.sh (-ldflags -X) when the SDK's internal/json carries the
// GO_SDK_DIRECT_JSON switch (_sdk/internal_json.go); a plain `go build` leaves it empty.
var sdkOverlay string

type config struct {
	port         string
	stateless    bool
	jsonResponse bool
	directJSON   bool
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
	// Read again by the SDK's overlaid internal/json at start: a binary built without the overlay
	// would silently ignore it, so that build refuses it.
	if cfg.directJSON, err = env.Flag("GO_SDK_DIRECT_JSON"); err != nil {
		return cfg, err
	}
	if cfg.directJSON && sdkOverlay != "direct-json" {
		return cfg, errors.New("GO_SDK_DIRECT_JSON=1 needs the SDK overlay: build with ./build.sh")
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
	b := upstream.New()
	defer b.Close()

	server := mcp.NewServer(&mcp.Implementation{Name: "perflab-go", Version: "1.0.0"}, nil)
	registerTools(server, b, dv)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:           cfg.stateless,
		JSONResponse:        cfg.jsonResponse,
		MaxRequestBodyBytes: maxBodyBytes,
	})

	shuttingDown := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", closeStreamsOnShutdown(mcpHandler, shuttingDown))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /debug/runtime", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, runtimeinfo.ReadMCP(cfg.stateless, cfg.jsonResponse, func() int {
			n := 0
			for range server.Sessions() {
				n++
			}
			return n
		}))
	})
	mux.HandleFunc("GET /rest/time", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, struct {
			NowMs int64 `json:"now_ms"`
		}{time.Now().UnixMilli()})
	})
	mux.HandleFunc("GET /rest/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		rest.User(w, r.Context(), r.PathValue("id"), b.User, upstream.ErrNotFound)
	})

	// Signals are caught before the start line: a SIGTERM sent right after it
	// must shut down gracefully, not meet the default action (exit by signal).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	ln, err := net.Listen("tcp", "127.0.0.1:"+cfg.port)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Printf("perflab go server listening on http://%s (stateless=%t json_response=%t direct_json=%t gomaxprocs=%d)",
		ln.Addr(), cfg.stateless, cfg.jsonResponse, cfg.directJSON, runtimeinfo.Read().Parallelism)

	return lifecycle.Serve(ctx, srv, ln, func(sctx context.Context) error {
		close(shuttingDown)
		return srv.Shutdown(sctx)
	})
}

// closeStreamsOnShutdown ends the long-lived GET event streams when shutdown
// starts: they never become idle on their own, while POSTs are left to finish.
func closeStreamsOnShutdown(next http.Handler, shuttingDown <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-shuttingDown:
				cancel()
			case <-ctx.Done():
			}
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
