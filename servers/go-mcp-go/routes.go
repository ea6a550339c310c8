package main

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"perflab/servers/go-common/compute"
	"perflab/servers/go-common/runtimeinfo"
)

// plainRoutes are the contract's plain HTTP routes (CONTRACT.md section 7).
func plainRoutes(mux *http.ServeMux, b *backends, runtime func() runtimeinfo.Info) {
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /debug/runtime", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, runtime())
	})
	mux.HandleFunc("GET /rest/time", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, struct {
			NowMs int64 `json:"now_ms"`
		}{time.Now().UnixMilli()})
	})
	mux.HandleFunc("GET /rest/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		restUser(w, r, b)
	})
}

func restUser(w http.ResponseWriter, r *http.Request, b *backends) {
	id, ok := parseUserID(r.PathValue("id"))
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid id"})
		return
	}
	u, err := lookupUser(r.Context(), b, id)
	switch {
	case errors.Is(err, errNotFound):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
	case err != nil:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "database unavailable"})
	default:
		writeJSON(w, http.StatusOK, u)
	}
}

// parseUserID accepts exactly ^[1-9][0-9]{0,8}$ (CONTRACT.md section 7); strconv.Atoi would also
// take a sign ("+5").
func parseUserID(raw string) (int, bool) {
	if len(raw) < 1 || len(raw) > 9 || raw[0] < '1' || raw[0] > '9' {
		return 0, false
	}
	id := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + int(c-'0')
	}
	return id, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := compute.CanonicalJSON(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write([]byte(body))
}
