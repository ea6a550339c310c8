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

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/redis/go-redis/v9"
	"perflab/servers/go-common/compute"
	"perflab/servers/go-common/upstream"
)

type (
	fetchIn struct {
		DelayMs integer `json:"delay_ms"`
	}
	searchIn struct {
		Query string `json:"query"`
		// A pointer, so that an explicit 0 reaches the range check instead of becoming the default
		// 10, which applies only when the field is absent.
		Limit *integer `json:"limit"`
	}
	userIDIn struct {
		UserID integer `json:"user_id"`
	}
	lineItem struct {
		ProductID integer `json:"product_id"`
		Quantity  integer `json:"quantity"`
	}
	checkoutIn struct {
		UserID integer    `json:"user_id"`
		Items  []lineItem `json:"items"`
	}
	getUserIn struct {
		ID integer `json:"id"`
	}
)

// searchLimit is search_products' limit: the schema's default 10 only when the field is absent.
func searchLimit(limit *integer) integer {
	if limit == nil {
		return 10
	}
	return *limit
}

var querySyntax = regexp.MustCompile(`^[a-z]{1,32}$`).MatchString

// backendTools are the tools that call the fixtures (CONTRACT.md sections 4.6-4.10); each starts
// its calls concurrently before it awaits any.
func backendTools(b *backends) []server.ServerTool {
	return []server.ServerTool{
		contractTool("fetch_upstream", b.fetchUpstream),
		contractTool("search_products", b.searchProducts),
		contractTool("get_user_cart", b.getUserCart),
		contractTool("checkout", b.checkout),
		contractTool("get_user", b.getUser),
	}
}

func (b *backends) fetchUpstream(ctx context.Context, _ mcp.CallToolRequest, in fetchIn) (*mcp.CallToolResult, error) {
	if err := inRange("delay_ms", in.DelayMs, 0, 10000); err != nil {
		return nil, err
	}
	body, err := b.API(ctx, "GET", "/delay?ms="+strconv.Itoa(int(in.DelayMs)), nil)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(body)), nil
}

func (b *backends) searchProducts(ctx context.Context, _ mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, error) {
	limit := searchLimit(in.Limit)
	if !querySyntax(in.Query) {
		return nil, fmt.Errorf("invalid_argument: query must match ^[a-z]{1,32}$")
	}
	if err := inRange("limit", limit, 1, 50); err != nil {
		return nil, err
	}
	rdb, err := b.Redis()
	if err != nil {
		return nil, err
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
		body, apiErr = b.API(ctx, "GET", "/products/search?q="+url.QueryEscape(in.Query)+"&limit="+strconv.Itoa(int(limit)), nil)
		if apiErr == nil {
			apiErr = upstream.DecodeAPI(body, &found)
		}
	})
	wg.Go(func() {
		top, redisErr = rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: "products:popularity", Start: 0, Stop: 4, Rev: true}).Result()
	})
	wg.Wait()
	if err := upstream.FirstErr(apiErr, upstream.RedisFail(redisErr)); err != nil {
		return nil, err
	}
	pop, err := upstream.PopularFrom(top)
	if err != nil {
		return nil, err
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
}

func (b *backends) getUserCart(ctx context.Context, _ mcp.CallToolRequest, in userIDIn) (*mcp.CallToolResult, error) {
	if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
		return nil, err
	}
	rdb, err := b.Redis()
	if err != nil {
		return nil, err
	}
	uid := strconv.Itoa(int(in.UserID))
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
		body, apiErr = b.API(ctx, "GET", "/products/"+strconv.Itoa(upstream.RecommendedProduct(int(in.UserID))), nil)
		if apiErr == nil {
			apiErr = upstream.DecodeAPI(body, &recommended)
		}
	})
	wg.Go(func() { history, historyErr = rdb.LRange(ctx, "user:"+uid+":history", -5, -1).Result() })
	wg.Wait()
	if err := upstream.FirstErr(upstream.RedisFail(cartErr), apiErr, upstream.RedisFail(historyErr)); err != nil {
		return nil, err
	}
	items, count, err := cartItems(cart)
	if err != nil {
		return nil, err
	}
	orders := make([]json.RawMessage, 0, len(history))
	for _, h := range history {
		if !json.Valid([]byte(h)) {
			return nil, fmt.Errorf("%w: malformed history entry", upstream.ErrBackend)
		}
		orders = append(orders, json.RawMessage(h))
	}
	return jsonResult(struct {
		UserID       int               `json:"user_id"`
		Items        []cartItem        `json:"items"`
		ItemCount    int               `json:"item_count"`
		Recommended  upstream.Product  `json:"recommended"`
		RecentOrders []json.RawMessage `json:"recent_orders"`
	}{int(in.UserID), items, count, recommended, orders})
}

type cartItem struct {
	ProductID int `json:"product_id"`
	Quantity  int `json:"quantity"`
}

// cartItems reads a cart hash (product id → quantity) sorted by product id, and its total quantity.
func cartItems(cart map[string]string) ([]cartItem, int, error) {
	items := make([]cartItem, 0, len(cart))
	count := 0
	for field, value := range cart {
		pid, err1 := strconv.Atoi(field)
		qty, err2 := strconv.Atoi(value)
		if err1 != nil || err2 != nil {
			return nil, 0, fmt.Errorf("%w: malformed cart entry %q=%q", upstream.ErrBackend, field, value)
		}
		items = append(items, cartItem{pid, qty})
		count += qty
	}
	slices.SortFunc(items, func(a, c cartItem) int { return a.ProductID - c.ProductID })
	return items, count, nil
}

func (b *backends) checkout(ctx context.Context, _ mcp.CallToolRequest, in checkoutIn) (*mcp.CallToolResult, error) {
	items, count, err := checkoutItems(in)
	if err != nil {
		return nil, err
	}
	rdb, err := b.Redis()
	if err != nil {
		return nil, err
	}
	order, err := compute.CanonicalJSON(struct {
		Items []cartItem `json:"items"`
	}{items})
	if err != nil {
		return nil, err
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
		history := "user:" + strconv.Itoa(int(in.UserID)) + ":history"
		pipe := rdb.Pipeline()
		orderNumber = pipe.Incr(ctx, "orders:count")
		pipe.RPush(ctx, history, order)
		pipe.LTrim(ctx, history, -50, -1)
		for _, it := range items {
			pipe.ZIncrBy(ctx, "products:popularity", float64(it.Quantity), strconv.Itoa(it.ProductID))
		}
		_, redisErr = pipe.Exec(ctx)
	})
	wg.Wait()
	if err := upstream.FirstErr(apiErr, upstream.RedisFail(redisErr)); err != nil {
		return nil, err
	}
	return jsonResult(struct {
		OrderNumber   int64 `json:"order_number"`
		UserID        int   `json:"user_id"`
		ItemCount     int   `json:"item_count"`
		SubtotalCents int64 `json:"subtotal_cents"`
		TaxCents      int64 `json:"tax_cents"`
		TotalCents    int64 `json:"total_cents"`
	}{orderNumber.Val(), int(in.UserID), count, priced.SubtotalCents, priced.TaxCents, priced.TotalCents})
}

// checkoutItems re-checks checkout's arguments and returns its items and their total quantity.
func checkoutItems(in checkoutIn) ([]cartItem, int, error) {
	if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
		return nil, 0, err
	}
	if len(in.Items) < 1 || len(in.Items) > 10 {
		return nil, 0, fmt.Errorf("invalid_argument: items must hold 1..10 entries")
	}
	items := make([]cartItem, 0, len(in.Items))
	count := 0
	for _, it := range in.Items {
		if err := upstream.FirstErr(inRange("product_id", it.ProductID, 1, 100000), inRange("quantity", it.Quantity, 1, 10)); err != nil {
			return nil, 0, err
		}
		items = append(items, cartItem{int(it.ProductID), int(it.Quantity)})
		count += int(it.Quantity)
	}
	return items, count, nil
}

func (b *backends) getUser(ctx context.Context, _ mcp.CallToolRequest, in getUserIn) (*mcp.CallToolResult, error) {
	if err := inRange("id", in.ID, 1, 100000); err != nil {
		return nil, err
	}
	u, err := b.User(ctx, int(in.ID))
	if err != nil {
		return nil, err
	}
	return jsonResult(u)
}
