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

	"github.com/jackc/pgx/v5"
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

type product struct {
	ID         int    `json:"id"`
	Name       string `json:"name"`
	Category   string `json:"category"`
	PriceCents int64  `json:"price_cents"`
	Stock      int64  `json:"stock"`
}

type popular struct {
	ProductID int   `json:"product_id"`
	Score     int64 `json:"score"`
}

type userRow struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	CreatedAt string `json:"created_at"`
}

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
			Total int       `json:"total"`
			Items []product `json:"items"`
		}
		top              []redis.Z
		apiErr, redisErr error
	)
	wg.Go(func() {
		var body []byte
		body, apiErr = b.API(ctx, "GET", "/products/search?q="+url.QueryEscape(in.Query)+"&limit="+strconv.Itoa(int(limit)), nil)
		if apiErr == nil {
			apiErr = decodeUpstream(body, &found)
		}
	})
	wg.Go(func() {
		top, redisErr = rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: "products:popularity", Start: 0, Stop: 4, Rev: true}).Result()
	})
	wg.Wait()
	if err := firstErr(apiErr, redisFail(redisErr)); err != nil {
		return nil, err
	}
	pop, err := toPopular(top)
	if err != nil {
		return nil, err
	}
	if found.Items == nil {
		found.Items = []product{}
	}
	return jsonResult(struct {
		Query   string    `json:"query"`
		Total   int       `json:"total"`
		Items   []product `json:"items"`
		Popular []popular `json:"popular"`
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
		recommended                 product
		cartErr, historyErr, apiErr error
	)
	wg.Go(func() { cart, cartErr = rdb.HGetAll(ctx, "user:"+uid+":cart").Result() })
	wg.Go(func() {
		var body []byte
		body, apiErr = b.API(ctx, "GET", "/products/"+strconv.Itoa(recommendedProduct(int(in.UserID))), nil)
		if apiErr == nil {
			apiErr = decodeUpstream(body, &recommended)
		}
	})
	wg.Go(func() { history, historyErr = rdb.LRange(ctx, "user:"+uid+":history", -5, -1).Result() })
	wg.Wait()
	if err := firstErr(redisFail(cartErr), apiErr, redisFail(historyErr)); err != nil {
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
		Recommended  product           `json:"recommended"`
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
			apiErr = decodeUpstream(body, &priced)
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
	if err := firstErr(apiErr, redisFail(redisErr)); err != nil {
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
		if err := firstErr(inRange("product_id", it.ProductID, 1, 100000), inRange("quantity", it.Quantity, 1, 10)); err != nil {
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
	u, err := lookupUser(ctx, b, int(in.ID))
	if err != nil {
		return nil, err
	}
	return jsonResult(u)
}

// errNotFound is a missing users row: a tool error, or 404 on the REST route.
var errNotFound = fmt.Errorf("not_found")

func lookupUser(ctx context.Context, b *backends, id int) (userRow, error) {
	pool, err := b.Postgres()
	if err != nil {
		return userRow{}, err
	}
	// Two budgets, as in every server (CONTRACT.md section 6): up to 5 s for a
	// free connection, then up to 5 s for the query.
	acquireCtx, cancelAcquire := context.WithTimeout(ctx, 5*time.Second)
	defer cancelAcquire()
	conn, err := pool.Acquire(acquireCtx)
	if err != nil {
		return userRow{}, fmt.Errorf("%w: postgres: %v", upstream.ErrBackend, err)
	}
	defer conn.Release()
	queryCtx, cancelQuery := context.WithTimeout(ctx, 5*time.Second)
	defer cancelQuery()
	var (
		u       userRow
		created time.Time
	)
	err = conn.QueryRow(queryCtx, "SELECT id, name, email, created_at FROM users WHERE id = $1", id).Scan(&u.ID, &u.Name, &u.Email, &created)
	if err == pgx.ErrNoRows {
		return userRow{}, fmt.Errorf("%w: user %d", errNotFound, id)
	}
	if err != nil {
		return userRow{}, fmt.Errorf("%w: postgres: %v", upstream.ErrBackend, err)
	}
	u.CreatedAt = created.UTC().Format("2006-01-02T15:04:05Z")
	return u, nil
}

// recommendedProduct is the product get_user_cart fetches from the API.
func recommendedProduct(userID int) int { return 1 + (userID*7919)%100000 }

func decodeUpstream(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("upstream_error: fixture API answered malformed JSON: %v", err)
	}
	return nil
}

func toPopular(zs []redis.Z) ([]popular, error) {
	out := make([]popular, 0, len(zs))
	for _, z := range zs {
		member, _ := z.Member.(string)
		id, err := strconv.Atoi(member)
		if err != nil {
			return nil, fmt.Errorf("%w: malformed popularity member %q", upstream.ErrBackend, member)
		}
		out = append(out, popular{id, int64(z.Score)})
	}
	return out, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// redisErr tags a failed Redis call as a backend failure.
func redisFail(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: redis: %v", upstream.ErrBackend, err)
}
