package main

import (
	"net/http"
	"time"

	"perflab/servers/go-common/rest"
	"perflab/servers/go-common/runtimeinfo"
	"perflab/servers/go-common/upstream"
)

// plainRoutes are the contract's plain HTTP routes (CONTRACT.md section 7).
func plainRoutes(mux *http.ServeMux, b *backends, runtime func() runtimeinfo.Info) {
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /debug/runtime", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, runtime())
	})
	mux.HandleFunc("GET /rest/time", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, struct {
			NowMs int64 `json:"now_ms"`
		}{time.Now().UnixMilli()})
	})
	mux.HandleFunc("GET /rest/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		rest.User(w, r.Context(), r.PathValue("id"), b.User, upstream.ErrNotFound)
	})
}
