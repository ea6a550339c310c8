// Package env reads the settings every Go server takes from its environment (CONTRACT.md): PORT and
// the 0/1 mode switches, refusing anything else so a server never starts in a mode it was not asked for.
package env

import (
	"fmt"
	"os"
	"strconv"
)

// Port is PORT, 8080 when unset; anything but 1..65535 is an error.
func Port() (string, error) {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", fmt.Errorf("PORT must be 1..65535, got %q", port)
	}
	return port, nil
}

// Flag reads a 0/1 switch: unset, "" and "0" are off, "1" is on, anything else is an error.
func Flag(name string) (bool, error) {
	switch v := os.Getenv(name); v {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, fmt.Errorf("%s must be 0 or 1, got %q", name, v)
	}
}
