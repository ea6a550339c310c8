package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"perflab/servers/go-common/compute"
	"perflab/servers/go-common/contract"
	"perflab/servers/go-common/validate"
)

const maxEchoBytes = 1 << 20

// toolHandler is a typed handler whose Go error becomes the contract's isError result
// (toolErrors, a tool handler middleware).
type toolHandler[T any] func(ctx context.Context, req mcp.CallToolRequest, in T) (*mcp.CallToolResult, error)

// contractTool declares a tool with the contract's description and schema, verbatim: mcp-go's
// builders (mcp.WithObject, mcp.WithArray) would add "properties":{} and other keys the contract
// does not list, hence mcp.NewToolWithRawSchema.
func contractTool[T any](name string, handle toolHandler[T]) server.ServerTool {
	d := contract.Tools[name]
	return server.ServerTool{
		Tool:    mcp.NewToolWithRawSchema(name, d.Description, json.RawMessage(d.Schema)),
		Handler: mcp.NewTypedToolHandler(mcp.TypedToolHandlerFunc[T](handle)),
	}
}

// toolErrors turns a handler's error into a tool result with isError and the error's text (which
// starts with the contract's code, e.g. "backend_unavailable:"), as CONTRACT.md section 3 asks;
// mcp-go would otherwise answer a JSON-RPC error.
func toolErrors(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		result, err := next(ctx, req)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return result, nil
	}
}

// integer is an argument of schema type integer: any JSON number without a fractional part,
// however written (10, 10.0, 1e1), as CONTRACT.md section 3 defines it. encoding/json alone
// refuses 10.0 for an int.
type integer int

func (n *integer) UnmarshalJSON(raw []byte) error {
	if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		*n = integer(i)
		return nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return fmt.Errorf("invalid_argument: %s is not an integer", raw)
	}
	*n = integer(f)
	return nil
}

// inRange re-checks bounds in the handler: the SDK validates the schema, but the contract must
// hold for a caller that bypasses it too.
func inRange(name string, v integer, lo, hi int) error {
	if int(v) < lo || int(v) > hi {
		return fmt.Errorf("invalid_argument: %s must be an integer in %d..%d", name, lo, hi)
	}
	return nil
}

func jsonResult(v any) (*mcp.CallToolResult, error) {
	s, err := compute.CanonicalJSON(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(s), nil
}

type (
	echoIn struct {
		Message    string  `json:"message"`
		PadToBytes integer `json:"pad_to_bytes"`
	}
	fibonacciIn struct {
		N integer `json:"n"`
	}
	validateIn struct {
		Document json.RawMessage `json:"document"`
	}
	transformIn struct {
		Size integer `json:"size"`
	}
	sleepIn struct {
		Ms integer `json:"ms"`
	}
)

// computeTools are the tools that need no backend.
func computeTools(dv *validate.Validator) []server.ServerTool {
	return []server.ServerTool{
		contractTool("echo", func(_ context.Context, _ mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, error) {
			if len(in.Message) > maxEchoBytes {
				return nil, fmt.Errorf("invalid_argument: message is longer than %d bytes", maxEchoBytes)
			}
			if err := inRange("pad_to_bytes", in.PadToBytes, 0, maxEchoBytes); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(compute.PadMessage(in.Message, int(in.PadToBytes))), nil
		}),
		contractTool("fibonacci", func(_ context.Context, _ mcp.CallToolRequest, in fibonacciIn) (*mcp.CallToolResult, error) {
			if err := inRange("n", in.N, 0, 35); err != nil {
				return nil, err
			}
			return jsonResult(struct {
				N     int   `json:"n"`
				Value int64 `json:"value"`
			}{int(in.N), compute.Fibonacci(int(in.N))})
		}),
		contractTool("validate_document", func(_ context.Context, _ mcp.CallToolRequest, in validateIn) (*mcp.CallToolResult, error) {
			if len(in.Document) == 0 || in.Document[0] != '{' {
				return nil, fmt.Errorf("invalid_argument: document must be an object")
			}
			v, err := dv.Validate(in.Document)
			if err != nil {
				return nil, fmt.Errorf("invalid_argument: %v", err)
			}
			return jsonResult(v)
		}),
		contractTool("transform_data", func(_ context.Context, _ mcp.CallToolRequest, in transformIn) (*mcp.CallToolResult, error) {
			if err := inRange("size", in.Size, 1, 100000); err != nil {
				return nil, err
			}
			return jsonResult(compute.TransformData(int(in.Size)))
		}),
		contractTool("sleep", func(ctx context.Context, _ mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, error) {
			if err := inRange("ms", in.Ms, 0, 10000); err != nil {
				return nil, err
			}
			t := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return jsonResult(struct {
				SleptMs int `json:"slept_ms"`
			}{int(in.Ms)})
		}),
	}
}
