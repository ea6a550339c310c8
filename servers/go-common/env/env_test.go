package env

import (
	"strings"
	"testing"
)

func TestPortDefaultsTo8080AndRefusesOutOfRange(t *testing.T) {
	for value, want := range map[string]string{"": "8080", "1": "1", "65535": "65535"} {
		t.Setenv("PORT", value)
		if got, err := Port(); err != nil || got != want {
			t.Fatalf("PORT=%q: got %q, %v", value, got, err)
		}
	}
	for _, value := range []string{"0", "65536", "-1", "80x", " 80"} {
		t.Setenv("PORT", value)
		if _, err := Port(); err == nil || !strings.Contains(err.Error(), "PORT must be 1..65535") {
			t.Fatalf("PORT=%q: want a configuration error, got %v", value, err)
		}
	}
}

func TestFlagAcceptsOnlyZeroOrOne(t *testing.T) {
	for value, want := range map[string]bool{"": false, "0": false, "1": true} {
		t.Setenv("X_MODE", value)
		if got, err := Flag("X_MODE"); err != nil || got != want {
			t.Fatalf("%q: got %v, %v", value, got, err)
		}
	}
	for _, value := range []string{"true", "yes", "2", " 1"} {
		t.Setenv("X_MODE", value)
		if _, err := Flag("X_MODE"); err == nil || !strings.Contains(err.Error(), "X_MODE must be 0 or 1") {
			t.Fatalf("%q: want a configuration error, got %v", value, err)
		}
	}
}
