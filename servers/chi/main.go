// Command server is perflab's REST-only reference server: the plain HTTP routes of
// servers/CONTRACT.md section 7 on the chi router and a pgx pool, the Go side of the REST study
// (Go with chi + pgx against Node with Fastify + pg). It serves no MCP.
package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"perflab/servers/go-common/env"
	"perflab/servers/go-common/lifecycle"
	"perflab/servers/go-common/rest"
	"perflab/servers/go-common/runtimeinfo"
)

func loadPort() (string, error) {
	port, err := env.Port()
	if err != nil {
		return "", err
	}
	// A REST-only server has no MCP mode to switch: asking for one is a configuration error.
	for _, name := range []string{"MCP_STATELESS", "MCP_JSON_RESPONSE"} {
		if v := os.Getenv(name); v != "" && v != "0" {
			return "", fmt.Errorf("%s=%q: this server serves no MCP", name, v)
		}
	}
	return port, nil
}

// newRouter is the contract's plain routes (section 7). No request logger: logging must not be
// part of the measurement; Recoverer turns a panic into a 500 instead of a dropped connection.
func newRouter(users *userStore) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Get("/health", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/debug/runtime", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, runtimeinfo.Read())
	})
	r.Get("/rest/time", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, struct {
			NowMs int64 `json:"now_ms"`
		}{time.Now().UnixMilli()})
	})
	r.Get("/rest/users/{id}", users.get)
	return r
}

func main() { lifecycle.Main(run) }

func run() error {
	port, err := loadPort()
	if err != nil {
		return err
	}
	users := newUserStore(os.Getenv("DATABASE_URL"))
	defer users.close()

	// Signals are caught before the start line: a SIGTERM sent right after it must shut down
	// gracefully, not meet the default action (exit by signal).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newRouter(users), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	log.Printf("perflab chi server listening on http://%s (gomaxprocs=%d)", ln.Addr(), runtimeinfo.Read().Parallelism)

	return lifecycle.Serve(ctx, srv, ln, srv.Shutdown)
}
