// Package rest is what the Go servers' plain HTTP routes (CONTRACT.md section 7) share: the
// canonical JSON answer and /rest/users/{id}'s id pattern and statuses.
package rest

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"perflab/servers/go-common/compute"
)

// WriteJSON answers v in the contract's canonical JSON with an exact Content-Length.
func WriteJSON(w http.ResponseWriter, status int, v any) {
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

// User answers /rest/users/{id} for the raw id: 400 off the id pattern, 404 when lookup's error
// is notFound, 503 for any other error, else the row.
func User[T any](w http.ResponseWriter, ctx context.Context, raw string, lookup func(context.Context, int) (T, error), notFound error) {
	id, ok := ParseUserID(raw)
	if !ok {
		WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid id"})
		return
	}
	u, err := lookup(ctx, id)
	switch {
	case errors.Is(err, notFound):
		WriteJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
	case err != nil:
		WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "database unavailable"})
	default:
		WriteJSON(w, http.StatusOK, u)
	}
}

// ParseUserID accepts exactly ^[1-9][0-9]{0,8}$ (CONTRACT.md section 7); strconv.Atoi would also
// take a sign ("+5").
func ParseUserID(raw string) (int, bool) {
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
