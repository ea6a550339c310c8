package main

import (
	"context"
	"fmt"
	"regexp"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
	body, err := b.Delay(ctx, int(in.DelayMs))
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(body), nil
}

func (b *backends) searchProducts(ctx context.Context, _ mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, error) {
	limit := searchLimit(in.Limit)
	if !querySyntax(in.Query) {
		return nil, fmt.Errorf("invalid_argument: query must match ^[a-z]{1,32}$")
	}
	if err := inRange("limit", limit, 1, 50); err != nil {
		return nil, err
	}
	found, err := b.Search(ctx, in.Query, int(limit))
	if err != nil {
		return nil, err
	}
	return jsonResult(found)
}

func (b *backends) getUserCart(ctx context.Context, _ mcp.CallToolRequest, in userIDIn) (*mcp.CallToolResult, error) {
	if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
		return nil, err
	}
	cart, err := b.UserCart(ctx, int(in.UserID))
	if err != nil {
		return nil, err
	}
	return jsonResult(cart)
}

func (b *backends) checkout(ctx context.Context, _ mcp.CallToolRequest, in checkoutIn) (*mcp.CallToolResult, error) {
	items, err := checkoutItems(in)
	if err != nil {
		return nil, err
	}
	order, err := b.Checkout(ctx, int(in.UserID), items)
	if err != nil {
		return nil, err
	}
	return jsonResult(order)
}

// checkoutItems re-checks checkout's arguments and returns its items.
func checkoutItems(in checkoutIn) ([]upstream.LineItem, error) {
	if err := inRange("user_id", in.UserID, 1, 1000); err != nil {
		return nil, err
	}
	if len(in.Items) < 1 || len(in.Items) > 10 {
		return nil, fmt.Errorf("invalid_argument: items must hold 1..10 entries")
	}
	items := make([]upstream.LineItem, 0, len(in.Items))
	for _, it := range in.Items {
		if err := upstream.FirstErr(inRange("product_id", it.ProductID, 1, 100000), inRange("quantity", it.Quantity, 1, 10)); err != nil {
			return nil, err
		}
		items = append(items, upstream.LineItem{ProductID: int(it.ProductID), Quantity: int(it.Quantity)})
	}
	return items, nil
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
