package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"perflab/servers/go-common/compute"
	"perflab/servers/go-common/contract"
	"perflab/servers/go-common/upstream"
	"perflab/servers/go-common/validate"
)

const maxEchoBytes = 1 << 20

func tool(name string) *mcp.Tool {
	d := contract.Tools[name]
	return &mcp.Tool{Name: name, Description: d.Description, InputSchema: json.RawMessage(d.Schema)}
}

// text wraps a result string as the single text content of a tool result.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func jsonResult(v any) (*mcp.CallToolResult, any, error) {
	s, err := compute.CanonicalJSON(v)
	if err != nil {
		return nil, nil, err
	}
	return text(s), nil, nil
}

// inRange re-checks bounds in the handler: the SDK validates the schema, but the
// contract must hold even for a caller that bypasses it.
func inRange(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("invalid_argument: %s must be an integer in %d..%d", name, lo, hi)
	}
	return nil
}

type (
	echoIn struct {
		Message    string `json:"message"`
		PadToBytes int    `json:"pad_to_bytes"`
	}
	fibonacciIn struct {
		N int `json:"n"`
	}
	validateIn struct {
		Document json.RawMessage `json:"document"`
	}
	transformIn struct {
		Size int `json:"size"`
	}
	sleepIn struct {
		Ms int `json:"ms"`
	}
	fetchIn struct {
		DelayMs int `json:"delay_ms"`
	}
	searchIn struct {
		Query string `json:"query"`
		// A pointer, so that an explicit 0 reaches the range check instead of
		// becoming the default (the SDK fills in the schema's default 10 when
		// the field is absent; nil covers a caller that bypasses the SDK).
		Limit *int `json:"limit"`
	}
	userIDIn struct {
		UserID int `json:"user_id"`
	}
	checkoutIn struct {
		UserID int                 `json:"user_id"`
		Items  []upstream.LineItem `json:"items"`
	}
	getUserIn struct {
		ID int `json:"id"`
	}
)

// searchLimit is search_products' limit: the schema's default 10 only when the
// field is absent, so an explicit 0 fails the range check.
func searchLimit(limit *int) int {
	if limit == nil {
		return 10
	}
	return *limit
}

var querySyntax = regexp.MustCompile(`^[a-z]{1,32}$`).MatchString

func registerTools(s *mcp.Server, b *upstream.Clients, dv *validate.Validator) {
	mcp.AddTool(s, tool("echo"), func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		if len(in.Message) > maxEchoBytes {
			return nil, nil, fmt.Errorf("invalid_argument: message is longer than %d bytes", maxEchoBytes)
		}
		if err := inRange("pad_to_bytes", in.PadToBytes, 0, maxEchoBytes); err != nil {
			return nil, nil, err
		}
		return text(compute.PadMessage(in.Message, in.PadToBytes)), nil, nil
	})

	mcp.AddTool(s, tool("fibonacci"), func(_ context.Context, _ *mcp.CallToolRequest, in fibonacciIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("n", in.N, 0, 35); err != nil {
			return nil, nil, err
		}
		return jsonResult(struct {
			N     int   `json:"n"`
			Value int64 `json:"value"`
		}{in.N, compute.Fibonacci(in.N)})
	})

	mcp.AddTool(s, tool("validate_document"), func(_ context.Context, _ *mcp.CallToolRequest, in validateIn) (*mcp.CallToolResult, any, error) {
		if len(in.Document) == 0 || in.Document[0] != '{' {
			return nil, nil, fmt.Errorf("invalid_argument: document must be an object")
		}
		v, err := dv.Validate(in.Document)
		if err != nil {
			return nil, nil, fmt.Errorf("invalid_argument: %v", err)
		}
		return jsonResult(v)
	})

	mcp.AddTool(s, tool("transform_data"), func(_ context.Context, _ *mcp.CallToolRequest, in transformIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("size", in.Size, 1, 100000); err != nil {
			return nil, nil, err
		}
		return jsonResult(compute.TransformData(in.Size))
	})

	mcp.AddTool(s, tool("sleep"), func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("ms", in.Ms, 0, 10000); err != nil {
			return nil, nil, err
		}
		t := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return jsonResult(struct {
			SleptMs int `json:"slept_ms"`
		}{in.Ms})
	})

	mcp.AddTool(s, tool("fetch_upstream"), func(ctx context.Context, _ *mcp.CallToolRequest, in fetchIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("delay_ms", in.DelayMs, 0, 10000); err != nil {
			return nil, nil, err
		}
		body, err := b.Delay(ctx, in.DelayMs)
		if err != nil {
			return nil, nil, err
		}
		return text(body), nil, nil
	})

	mcp.AddTool(s, tool("search_products"), func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
		limit := searchLimit(in.Limit)
		if !querySyntax(in.Query) {
			return nil, nil, fmt.Errorf("invalid_argument: query must match ^[a-z]{1,32}$")
		}
		if err := inRange("limit", limit, 1, 50); err != nil {
			return nil, nil, err
		}
		found, err := b.Search(ctx, in.Query, limit)
		if err != nil {
			return nil, nil, err
		}
		return jsonResult(found)
	})

	mcp.AddTool(s, tool("get_user_cart"), func(ctx context.Context, _ *mcp.CallToolRequest, in userIDIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
			return nil, nil, err
		}
		cart, err := b.UserCart(ctx, in.UserID)
		if err != nil {
			return nil, nil, err
		}
		return jsonResult(cart)
	})

	mcp.AddTool(s, tool("checkout"), func(ctx context.Context, _ *mcp.CallToolRequest, in checkoutIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
			return nil, nil, err
		}
		if len(in.Items) < 1 || len(in.Items) > 10 {
			return nil, nil, fmt.Errorf("invalid_argument: items must hold 1..10 entries")
		}
		for _, it := range in.Items {
			if err := upstream.FirstErr(inRange("product_id", it.ProductID, 1, 100000), inRange("quantity", it.Quantity, 1, 10)); err != nil {
				return nil, nil, err
			}
		}
		order, err := b.Checkout(ctx, in.UserID, in.Items)
		if err != nil {
			return nil, nil, err
		}
		return jsonResult(order)
	})

	mcp.AddTool(s, tool("get_user"), func(ctx context.Context, _ *mcp.CallToolRequest, in getUserIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("id", in.ID, 1, 100000); err != nil {
			return nil, nil, err
		}
		u, err := b.User(ctx, in.ID)
		if err != nil {
			return nil, nil, err
		}
		return jsonResult(u)
	})
}
