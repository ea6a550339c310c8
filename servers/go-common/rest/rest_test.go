package rest

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestParseUserIDAcceptsOnlyTheContractPattern(t *testing.T) {
	for raw, want := range map[string]int{"1": 1, "42": 42, "100000": 100000, "999999999": 999999999} {
		if got, ok := ParseUserID(raw); !ok || got != want {
			t.Fatalf("%q: got %d, %v", raw, got, ok)
		}
	}
	for _, raw := range []string{"", "0", "01", "+1", "+5", "-1", " 1", "1 ", "1e3", "1.5", "0x1", "1234567890", "42x", "١"} {
		if got, ok := ParseUserID(raw); ok {
			t.Fatalf("%q: accepted as %d", raw, got)
		}
	}
}

func TestUserAnswersTheContractsStatusesAndCanonicalJSON(t *testing.T) {
	missing := errors.New("no row")
	lookup := func(_ context.Context, id int) (map[string]any, error) {
		switch id {
		case 1:
			return map[string]any{"id": 1, "name": "<A&B>"}, nil
		case 2:
			return nil, missing
		}
		return nil, errors.New("connection refused")
	}
	for raw, want := range map[string]struct {
		status int
		body   string
	}{
		"1":  {200, `{"id":1,"name":"<A&B>"}`},
		"2":  {404, `{"error":"not found"}`},
		"3":  {503, `{"error":"database unavailable"}`},
		"01": {400, `{"error":"invalid id"}`},
	} {
		w := httptest.NewRecorder()
		User(w, context.Background(), raw, lookup, missing)
		if w.Code != want.status || w.Body.String() != want.body || w.Header().Get("Content-Length") != strconv.Itoa(len(want.body)) {
			t.Errorf("%q: %d %s (%s)", raw, w.Code, w.Body, w.Header())
		}
	}
}
