// perflab: begin
// perflab puts this file in place of the SDK's internal/json/json.go (v1.8.0) in a copy of the SDK
// when it builds the Go server (build.sh: the copy, then a -modfile replace). Removing every perflab block gives the SDK's file back
// byte for byte (sdk_overlay_test.go checks it). The one change: with GO_SDK_DIRECT_JSON=1,
// Unmarshal parses the message's bytes in place instead of through a streaming Decoder, whose
// first read allocates a 32 KiB buffer for every message however small (see README.md).
// perflab: end
// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

// Package json provides internal JSON utilities.

package json

import (
	"bytes"
	"fmt"
	"io"
	// perflab: begin
	"os"
	// perflab: end

	"github.com/segmentio/encoding/json"
)

// defaultMaxDepth is the maximum JSON nesting depth accepted by [Unmarshal].
// Realistic MCP payloads nest only a handful of levels, so 1000 is far more
// than any legitimate message requires while keeping worst-case parse cost
// bounded.
const defaultMaxDepth = 1000

// errMaxDepthExceeded is returned by [Unmarshal] when the input nests deeper than [defaultMaxDepth].
var errMaxDepthExceeded = fmt.Errorf("json: exceeded maximum nesting depth of %d", defaultMaxDepth)

type Decoder struct {
	dec *json.Decoder
}

func NewDecoder(r io.Reader) *Decoder {
	dec := json.NewDecoder(r)
	dec.DontMatchCaseInsensitiveStructFields()
	return &Decoder{dec: dec}
}

func (d *Decoder) Decode(v any) error {
	return d.dec.Decode(v)
}

func Unmarshal(data []byte, v any) error {
	if err := checkMaxDepth(data, defaultMaxDepth); err != nil {
		return err
	}
	// perflab: begin
	if directJSON {
		return unmarshalDirect(data, v)
	}
	// perflab: end
	return NewDecoder(bytes.NewReader(data)).Decode(v)
}

// perflab: begin

// directJSON is read once at start: GO_SDK_DIRECT_JSON=1 (the server's main refuses any value
// but unset, 0 or 1).
var directJSON = os.Getenv("GO_SDK_DIRECT_JSON") == "1"

// unmarshalDirect decodes the one JSON value in data as Decoder.Decode does (same parser, same
// flags, anything after the first value ignored) without copying data into a new 32 KiB buffer.
// Input without a value is io.EOF, as from the Decoder; other errors may be worded differently.
func unmarshalDirect(data []byte, v any) error {
	for _, b := range data {
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			_, err := json.Parse(data, v, json.DontMatchCaseInsensitiveStructFields)
			return err
		}
	}
	return io.EOF
}

// perflab: end

// checkMaxDepth scans data once and reports [errMaxDepthExceeded] if the
// nesting of JSON objects and arrays exceeds maxDepth. It is a lightweight pass which
// tracks '{' and '[' against '}' and ']' while skipping over the contents of strings.
func checkMaxDepth(data []byte, maxDepth int) error {
	var (
		depth    int
		inString bool
		escaped  bool
	)
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}

		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return errMaxDepthExceeded
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
