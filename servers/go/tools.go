package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
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
	lineItem struct {
		ProductID int `json:"product_id"`
		Quantity  int `json:"quantity"`
	}
	checkoutIn struct {
		UserID int        `json:"user_id"`
		Items  []lineItem `json:"items"`
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
		body, err := b.API(ctx, "GET", "/delay?ms="+strconv.Itoa(in.DelayMs), nil)
		if err != nil {
			return nil, nil, err
		}
		return text(string(body)), nil, nil
	})

	mcp.AddTool(s, tool("search_products"), func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
		limit := searchLimit(in.Limit)
		if !querySyntax(in.Query) {
			return nil, nil, fmt.Errorf("invalid_argument: query must match ^[a-z]{1,32}$")
		}
		if err := inRange("limit", limit, 1, 50); err != nil {
			return nil, nil, err
		}
		rdb, err := b.Redis()
		if err != nil {
			return nil, nil, err
		}
		var (
			wg    sync.WaitGroup
			found struct {
				Total int                `json:"total"`
				Items []upstream.Product `json:"items"`
			}
			top              []redis.Z
			apiErr, redisErr error
		)
		wg.Go(func() {
			var body []byte
			body, apiErr = b.API(ctx, "GET", "/products/search?q="+url.QueryEscape(in.Query)+"&limit="+strconv.Itoa(limit), nil)
			if apiErr == nil {
				apiErr = upstream.DecodeAPI(body, &found)
			}
		})
		wg.Go(func() {
			top, redisErr = rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: "products:popularity", Start: 0, Stop: 4, Rev: true}).Result()
		})
		wg.Wait()
		if err := upstream.FirstErr(apiErr, upstream.RedisFail(redisErr)); err != nil {
			return nil, nil, err
		}
		pop, err := upstream.PopularFrom(top)
		if err != nil {
			return nil, nil, err
		}
		if found.Items == nil {
			found.Items = []upstream.Product{}
		}
		return jsonResult(struct {
			Query   string             `json:"query"`
			Total   int                `json:"total"`
			Items   []upstream.Product `json:"items"`
			Popular []upstream.Popular `json:"popular"`
		}{in.Query, found.Total, found.Items, pop})
	})

	mcp.AddTool(s, tool("get_user_cart"), func(ctx context.Context, _ *mcp.CallToolRequest, in userIDIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
			return nil, nil, err
		}
		rdb, err := b.Redis()
		if err != nil {
			return nil, nil, err
		}
		uid := strconv.Itoa(in.UserID)
		var (
			wg                          sync.WaitGroup
			cart                        map[string]string
			history                     []string
			recommended                 upstream.Product
			cartErr, historyErr, apiErr error
		)
		wg.Go(func() { cart, cartErr = rdb.HGetAll(ctx, "user:"+uid+":cart").Result() })
		wg.Go(func() {
			var body []byte
			body, apiErr = b.API(ctx, "GET", "/products/"+strconv.Itoa(upstream.RecommendedProduct(in.UserID)), nil)
			if apiErr == nil {
				apiErr = upstream.DecodeAPI(body, &recommended)
			}
		})
		wg.Go(func() { history, historyErr = rdb.LRange(ctx, "user:"+uid+":history", -5, -1).Result() })
		wg.Wait()
		if err := upstream.FirstErr(upstream.RedisFail(cartErr), apiErr, upstream.RedisFail(historyErr)); err != nil {
			return nil, nil, err
		}
		items := make([]lineItem, 0, len(cart))
		count := 0
		for field, value := range cart {
			pid, err1 := strconv.Atoi(field)
			qty, err2 := strconv.Atoi(value)
			if err1 != nil || err2 != nil {
				return nil, nil, fmt.Errorf("%w: malformed cart entry %q=%q", upstream.ErrBackend, field, value)
			}
			items = append(items, lineItem{pid, qty})
			count += qty
		}
		slices.SortFunc(items, func(a, c lineItem) int { return a.ProductID - c.ProductID })
		orders := make([]json.RawMessage, 0, len(history))
		for _, h := range history {
			if !json.Valid([]byte(h)) {
				return nil, nil, fmt.Errorf("%w: malformed history entry", upstream.ErrBackend)
			}
			orders = append(orders, json.RawMessage(h))
		}
		return jsonResult(struct {
			UserID       int               `json:"user_id"`
			Items        []lineItem        `json:"items"`
			ItemCount    int               `json:"item_count"`
			Recommended  upstream.Product  `json:"recommended"`
			RecentOrders []json.RawMessage `json:"recent_orders"`
		}{in.UserID, items, count, recommended, orders})
	})

	mcp.AddTool(s, tool("checkout"), func(ctx context.Context, _ *mcp.CallToolRequest, in checkoutIn) (*mcp.CallToolResult, any, error) {
		if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
			return nil, nil, err
		}
		if len(in.Items) < 1 || len(in.Items) > 10 {
			return nil, nil, fmt.Errorf("invalid_argument: items must hold 1..10 entries")
		}
		count := 0
		for _, it := range in.Items {
			if err := upstream.FirstErr(inRange("product_id", it.ProductID, 1, 100000), inRange("quantity", it.Quantity, 1, 10)); err != nil {
				return nil, nil, err
			}
			count += it.Quantity
		}
		rdb, err := b.Redis()
		if err != nil {
			return nil, nil, err
		}
		order, err := compute.CanonicalJSON(struct {
			Items []lineItem `json:"items"`
		}{in.Items})
		if err != nil {
			return nil, nil, err
		}
		var (
			wg     sync.WaitGroup
			priced struct {
				SubtotalCents int64 `json:"subtotal_cents"`
				TaxCents      int64 `json:"tax_cents"`
				TotalCents    int64 `json:"total_cents"`
			}
			orderNumber      *redis.IntCmd
			apiErr, redisErr error
		)
		wg.Go(func() {
			var body []byte
			body, apiErr = b.API(ctx, "POST", "/cart/calculate", bytes.NewReader([]byte(order)))
			if apiErr == nil {
				apiErr = upstream.DecodeAPI(body, &priced)
			}
		})
		wg.Go(func() {
			history := "user:" + strconv.Itoa(in.UserID) + ":history"
			pipe := rdb.Pipeline()
			orderNumber = pipe.Incr(ctx, "orders:count")
			pipe.RPush(ctx, history, order)
			pipe.LTrim(ctx, history, -50, -1)
			for _, it := range in.Items {
				pipe.ZIncrBy(ctx, "products:popularity", float64(it.Quantity), strconv.Itoa(it.ProductID))
			}
			_, redisErr = pipe.Exec(ctx)
		})
		wg.Wait()
		if err := upstream.FirstErr(apiErr, upstream.RedisFail(redisErr)); err != nil {
			return nil, nil, err
		}
		return jsonResult(struct {
			OrderNumber   int64 `json:"order_number"`
			UserID        int   `json:"user_id"`
			ItemCount     int   `json:"item_count"`
			SubtotalCents int64 `json:"subtotal_cents"`
			TaxCents      int64 `json:"tax_cents"`
			TotalCents    int64 `json:"total_cents"`
		}{orderNumber.Val(), in.UserID, count, priced.SubtotalCents, priced.TaxCents, priced.TotalCents})
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
