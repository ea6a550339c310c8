package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"perflab/servers/go-common/compute"
	"perflab/servers/go-common/upstream"
	"perflab/servers/go-common/validate"
)

// benchmarkDocument is the valid document the CPU scenario sends to
// validate_document: every optional field present and 20 line items.
func benchmarkDocument() map[string]any {
	items := make([]any, 20)
	for i := range items {
		items[i] = map[string]any{
			"sku":             fmt.Sprintf("SKU-%04d", 1000+i*37),
			"quantity":        1 + i%5,
			"unitPriceCents":  199 + i*250,
			"discountPercent": float64(i%4) * 2.5,
		}
	}
	return map[string]any{
		"id":        "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b",
		"createdAt": "2026-03-14",
		"status":    "paid",
		"customer": map[string]any{
			"name":  "Ada Lovelace",
			"email": "ada.lovelace@example.com",
			"phone": "+442079460000",
			"address": map[string]any{
				"street": "12 Analytical Engine Row", "city": "London", "postalCode": "NW1 6XE", "country": "GB",
			},
		},
		"items": items,
		"tags":  []any{"priority", "gift-wrap", "b2b"},
		"notes": "Leave at the front desk.",
	}
}

// invalidDocuments each break the benchmark document in a documented way.
func invalidDocuments() []struct {
	name  string
	doc   map[string]any
	edits func(d map[string]any)
} {
	type c = struct {
		name  string
		doc   map[string]any
		edits func(d map[string]any)
	}
	item := func(d map[string]any, i int) map[string]any { return d["items"].([]any)[i].(map[string]any) }
	return []c{
		{"missing required and bad enum", nil, func(d map[string]any) { delete(d, "items"); d["status"] = "lost" }},
		{"formats", nil, func(d map[string]any) {
			d["id"] = "not-a-uuid"
			d["createdAt"] = "2026-13-01"
			d["customer"].(map[string]any)["email"] = "no-at-sign.example.com"
		}},
		{"nested items", nil, func(d map[string]any) {
			item(d, 0)["quantity"] = 0
			item(d, 1)["sku"] = "abc-1234"
			item(d, 1)["color"] = "red"
			delete(item(d, 2), "unitPriceCents")
		}},
		{"one location, two failing keywords", nil, func(d map[string]any) { item(d, 3)["unitPriceCents"] = -1.5 }},
		{"tags unique and pattern", nil, func(d map[string]any) { d["tags"] = []any{"a", "Bad", "a"} }},
		{"wrong types", nil, func(d map[string]any) { d["customer"] = "Ada"; d["items"] = []any{}; d["notes"] = 7 }},
		{"address", nil, func(d map[string]any) {
			a := d["customer"].(map[string]any)["address"].(map[string]any)
			a["country"] = "gb"
			a["postalCode"] = "x"
			delete(a, "city")
			d["customer"].(map[string]any)["phone"] = "0123"
		}},
		{"extra root property", nil, func(d map[string]any) { d["priority"] = true }},
		{"empty object", map[string]any{}, nil},
		// JSON Schema patterns are ECMA-262: "$" is the end of the string, not also the place
		// before a final newline (as in Python's re and java.util.regex); formats are whole-string.
		{"patterns and formats end at the end of the string", nil, func(d map[string]any) {
			c := d["customer"].(map[string]any)
			a := c["address"].(map[string]any)
			d["id"] = d["id"].(string) + "\n"
			d["createdAt"] = d["createdAt"].(string) + "\n"
			c["email"] = c["email"].(string) + "\n"
			c["phone"] = c["phone"].(string) + "\n"
			a["postalCode"] = a["postalCode"].(string) + "\n"
			a["country"] = a["country"].(string) + "\n"
			item(d, 0)["sku"] = item(d, 0)["sku"].(string) + "\n"
			d["tags"] = []any{"priority\n", "b2b"}
		}},
	}
}

func strPtr(s string) *string { return &s }

func textVector(t *testing.T, dv *validate.Validator, name, tool string, args any) toolVector {
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	v := toolVector{Name: name, Tool: tool, Arguments: raw}
	got := callTool(t, dv, tool, raw)
	if len(got) > 4096 {
		sum := sha256.Sum256([]byte(got))
		n := len(got)
		v.TextBytes, v.TextSHA256 = &n, strPtr(hex.EncodeToString(sum[:]))
	} else {
		v.Text = &got
	}
	return v
}

func writeVectors(t *testing.T) {
	dv, err := validate.New()
	if err != nil {
		t.Fatal(err)
	}
	var vs []toolVector
	for _, c := range []struct {
		msg string
		pad *int
	}{{"hello", nil}, {"hello", ptr(0)}, {"hello", ptr(3)}, {"hello", ptr(70)}, {"héllo", ptr(8)}, {"", ptr(1024)}, {"x", ptr(10240)}, {"x", ptr(102400)}, {"x", ptr(1048576)}} {
		args := map[string]any{"message": c.msg}
		name := fmt.Sprintf("echo %q", c.msg)
		if c.pad != nil {
			args["pad_to_bytes"] = *c.pad
			name += fmt.Sprintf(" padded to %d", *c.pad)
		}
		vs = append(vs, textVector(t, dv, name, "echo", args))
	}
	for _, n := range []int{0, 1, 2, 10, 25, 30, 35} {
		vs = append(vs, textVector(t, dv, fmt.Sprintf("fibonacci %d", n), "fibonacci", map[string]any{"n": n}))
	}
	for _, size := range []int{1, 2, 10, 1000, 100000} {
		vs = append(vs, textVector(t, dv, fmt.Sprintf("transform_data %d", size), "transform_data", map[string]any{"size": size}))
	}
	vs = append(vs, textVector(t, dv, "validate_document benchmark document", "validate_document", map[string]any{"document": benchmarkDocument()}))
	for _, c := range invalidDocuments() {
		doc := c.doc
		if doc == nil {
			doc = benchmarkDocument()
			c.edits(doc)
		}
		vs = append(vs, textVector(t, dv, "validate_document "+c.name, "validate_document", map[string]any{"document": doc}))
	}
	fx, err := json.Marshal(fixtureVectors())
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(vectorFile{
		Comment: "Golden vectors of servers/CONTRACT.md. tools: the result text of tools/call for the given arguments (text, or text_bytes + text_sha256 of the UTF-8 text when long). fixtures: samples of the fixture data. Regenerate with `go test ./... -run TestContractVectors -update` in servers/go.",
		Tools:   vs, Fixtures: fx,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vectorsPath, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ptr(i int) *int { return &i }

func fixtureVectors() map[string]any {
	products := generateProducts()
	pick := func(ids ...int) []upstream.Product {
		var out []upstream.Product
		for _, id := range ids {
			out = append(out, products[id-1].Product)
		}
		return out
	}
	search := func(q string, limit int) map[string]any {
		total, items := searchProducts(products, q, limit)
		return map[string]any{"q": q, "limit": limit, "response": map[string]any{"total": total, "items": items}}
	}
	seed := generateRedisSeed()
	cart := func(uid int) []upstream.LineItem {
		var out []upstream.LineItem
		for pid, qty := range seed.carts[uid] {
			out = append(out, upstream.LineItem{ProductID: pid, Quantity: qty})
		}
		slices.SortFunc(out, func(a, b upstream.LineItem) int { return a.ProductID - b.ProductID })
		return out
	}
	var pops []upstream.Popular
	for pid, score := range seed.popularity {
		pops = append(pops, upstream.Popular{ProductID: pid, Score: score})
	}
	// ZRANGE ... REV orders by score descending, then member descending (byte order).
	slices.SortFunc(pops, func(a, b upstream.Popular) int {
		if a.Score != b.Score {
			return int(b.Score - a.Score)
		}
		return strings.Compare(fmt.Sprint(b.ProductID), fmt.Sprint(a.ProductID))
	})
	user := func(id int) upstream.User {
		return upstream.User{ID: id, Name: fmt.Sprintf("User %d", id), Email: fmt.Sprintf("user%d@example.com", id)}
	}
	u1, u2 := user(1), user(100000)
	u1.CreatedAt, u2.CreatedAt = "2024-01-01T00:01:00Z", "2024-03-10T10:40:00Z"
	return map[string]any{
		"xorshift32_seed_42_first_5": func() []uint32 {
			rng := compute.Xorshift32(42)
			return []uint32{rng.Next(), rng.Next(), rng.Next(), rng.Next(), rng.Next()}
		}(),
		"products":                 pick(1, 2, 3, 4, 5, 50000, 99999, 100000),
		"product_search":           []any{search("lamp", 3), search("toys", 2), search("quiet", 50), search("zebra", 10)},
		"recommended_product_ids":  map[string]int{"1": upstream.RecommendedProduct(1), "13": upstream.RecommendedProduct(13), "1000": upstream.RecommendedProduct(1000)},
		"redis_user_1_cart":        cart(1),
		"redis_user_1_history":     seed.history[1],
		"redis_user_1000_cart":     cart(1000),
		"redis_user_1000_history":  seed.history[1000],
		"redis_popularity_members": len(seed.popularity),
		"redis_popularity_top_5":   pops[:5],
		"postgres_users":           []upstream.User{u1, u2},
	}
}
