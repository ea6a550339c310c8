package upstream

// The I/O tools' work (CONTRACT.md sections 4.6-4.9) for arguments the server has checked: each
// starts its calls concurrently before it awaits any, and answers the contract's result shape.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"
	"perflab/servers/go-common/compute"
)

// LineItem is a product and its quantity in a cart or an order.
type LineItem struct {
	ProductID int `json:"product_id"`
	Quantity  int `json:"quantity"`
}

// Delay is fetch_upstream: the fixture API's /delay answer, as its text.
func (b *Clients) Delay(ctx context.Context, ms int) (string, error) {
	body, err := b.API(ctx, "GET", "/delay?ms="+strconv.Itoa(ms), nil)
	return string(body), err
}

// SearchResult is search_products' result.
type SearchResult struct {
	Query   string    `json:"query"`
	Total   int       `json:"total"`
	Items   []Product `json:"items"`
	Popular []Popular `json:"popular"`
}

// Search is search_products: the fixture API's search and the five most popular products.
func (b *Clients) Search(ctx context.Context, query string, limit int) (SearchResult, error) {
	rdb, err := b.Redis()
	if err != nil {
		return SearchResult{}, err
	}
	var (
		wg    sync.WaitGroup
		found struct {
			Total int       `json:"total"`
			Items []Product `json:"items"`
		}
		top              []redis.Z
		apiErr, redisErr error
	)
	wg.Go(func() {
		var body []byte
		body, apiErr = b.API(ctx, "GET", "/products/search?q="+url.QueryEscape(query)+"&limit="+strconv.Itoa(limit), nil)
		if apiErr == nil {
			apiErr = DecodeAPI(body, &found)
		}
	})
	wg.Go(func() {
		top, redisErr = rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: "products:popularity", Start: 0, Stop: 4, Rev: true}).Result()
	})
	wg.Wait()
	if err := FirstErr(apiErr, RedisFail(redisErr)); err != nil {
		return SearchResult{}, err
	}
	pop, err := PopularFrom(top)
	if err != nil {
		return SearchResult{}, err
	}
	if found.Items == nil {
		found.Items = []Product{}
	}
	return SearchResult{query, found.Total, found.Items, pop}, nil
}

// Cart is get_user_cart's result.
type Cart struct {
	UserID       int               `json:"user_id"`
	Items        []LineItem        `json:"items"`
	ItemCount    int               `json:"item_count"`
	Recommended  Product           `json:"recommended"`
	RecentOrders []json.RawMessage `json:"recent_orders"`
}

// UserCart is get_user_cart: the user's cart and recent orders from Redis, its recommended product
// from the fixture API.
func (b *Clients) UserCart(ctx context.Context, userID int) (Cart, error) {
	rdb, err := b.Redis()
	if err != nil {
		return Cart{}, err
	}
	uid := strconv.Itoa(userID)
	var (
		wg                          sync.WaitGroup
		cart                        map[string]string
		history                     []string
		recommended                 Product
		cartErr, historyErr, apiErr error
	)
	wg.Go(func() { cart, cartErr = rdb.HGetAll(ctx, "user:"+uid+":cart").Result() })
	wg.Go(func() {
		var body []byte
		body, apiErr = b.API(ctx, "GET", "/products/"+strconv.Itoa(RecommendedProduct(userID)), nil)
		if apiErr == nil {
			apiErr = DecodeAPI(body, &recommended)
		}
	})
	wg.Go(func() { history, historyErr = rdb.LRange(ctx, "user:"+uid+":history", -5, -1).Result() })
	wg.Wait()
	if err := FirstErr(RedisFail(cartErr), apiErr, RedisFail(historyErr)); err != nil {
		return Cart{}, err
	}
	items, count, err := cartItems(cart)
	if err != nil {
		return Cart{}, err
	}
	orders := make([]json.RawMessage, 0, len(history))
	for _, h := range history {
		if !json.Valid([]byte(h)) {
			return Cart{}, fmt.Errorf("%w: malformed history entry", ErrBackend)
		}
		orders = append(orders, json.RawMessage(h))
	}
	return Cart{userID, items, count, recommended, orders}, nil
}

// cartItems reads a cart hash (product id → quantity) sorted by product id, and its total quantity.
func cartItems(cart map[string]string) ([]LineItem, int, error) {
	items := make([]LineItem, 0, len(cart))
	count := 0
	for field, value := range cart {
		pid, err1 := strconv.Atoi(field)
		qty, err2 := strconv.Atoi(value)
		if err1 != nil || err2 != nil {
			return nil, 0, fmt.Errorf("%w: malformed cart entry %q=%q", ErrBackend, field, value)
		}
		items = append(items, LineItem{pid, qty})
		count += qty
	}
	slices.SortFunc(items, func(a, c LineItem) int { return a.ProductID - c.ProductID })
	return items, count, nil
}

// Order is checkout's result.
type Order struct {
	OrderNumber   int64 `json:"order_number"`
	UserID        int   `json:"user_id"`
	ItemCount     int   `json:"item_count"`
	SubtotalCents int64 `json:"subtotal_cents"`
	TaxCents      int64 `json:"tax_cents"`
	TotalCents    int64 `json:"total_cents"`
}

// Checkout is checkout: the fixture API prices the items while one Redis pipeline numbers the
// order, appends it to the user's history and counts its products' popularity.
func (b *Clients) Checkout(ctx context.Context, userID int, items []LineItem) (Order, error) {
	rdb, err := b.Redis()
	if err != nil {
		return Order{}, err
	}
	order, err := compute.CanonicalJSON(struct {
		Items []LineItem `json:"items"`
	}{items})
	if err != nil {
		return Order{}, err
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
			apiErr = DecodeAPI(body, &priced)
		}
	})
	wg.Go(func() {
		history := "user:" + strconv.Itoa(userID) + ":history"
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
	if err := FirstErr(apiErr, RedisFail(redisErr)); err != nil {
		return Order{}, err
	}
	count := 0
	for _, it := range items {
		count += it.Quantity
	}
	return Order{orderNumber.Val(), userID, count, priced.SubtotalCents, priced.TaxCents, priced.TotalCents}, nil
}
