// Package compute is the contract's pure work (CONTRACT.md section 4) as every Go server computes
// it: echo's padding, fibonacci, transform_data and the canonical JSON of results.
package compute

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// PadAlphabet is the repeating padding of echo (CONTRACT.md, "echo").
const PadAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// PadMessage appends PadAlphabet bytes until the UTF-8 length is padTo; a longer
// message is returned unchanged, never truncated.
func PadMessage(message string, padTo int) string {
	missing := padTo - len(message)
	if missing <= 0 {
		return message
	}
	var b strings.Builder
	b.Grow(padTo)
	b.WriteString(message)
	for missing >= len(PadAlphabet) {
		b.WriteString(PadAlphabet)
		missing -= len(PadAlphabet)
	}
	b.WriteString(PadAlphabet[:missing])
	return b.String()
}

// Fibonacci is deliberately the naive double recursion: it is the CPU-bound
// workload every server runs identically, so it must not be memoised.
func Fibonacci(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	return Fibonacci(n-1) + Fibonacci(n-2)
}

// Xorshift32 is Marsaglia's 13/17/5 generator; every runtime can reproduce it
// exactly with 32-bit unsigned arithmetic.
type Xorshift32 uint32

// Next advances the generator and returns its new state.
func (x *Xorshift32) Next() uint32 {
	v := uint32(*x)
	v ^= v << 13
	v ^= v >> 17
	v ^= v << 5
	*x = Xorshift32(v)
	return v
}

// TransformCategories are transform_data's categories, also the fixture products' (CONTRACT.md).
var (
	TransformCategories = []string{"books", "electronics", "garden", "grocery", "health", "home", "sports", "toys"}
	transformRegions    = []string{"apac", "emea", "latam", "na"}
)

const transformSeed = 42

type record struct {
	id       int
	category string
	region   int
	amount   int64
	quantity int64
}

// RegionCounts counts a group's records per region.
type RegionCounts struct {
	Apac  int `json:"apac"`
	Emea  int `json:"emea"`
	Latam int `json:"latam"`
	Na    int `json:"na"`
}

// TransformGroup is one category's aggregates in transform_data's result.
type TransformGroup struct {
	Category         string       `json:"category"`
	Count            int          `json:"count"`
	TotalAmountCents int64        `json:"total_amount_cents"`
	TotalQuantity    int64        `json:"total_quantity"`
	RevenueCents     int64        `json:"revenue_cents"`
	MinAmountCents   int64        `json:"min_amount_cents"`
	MaxAmountCents   int64        `json:"max_amount_cents"`
	MeanAmountCents  int64        `json:"mean_amount_cents"`
	P50AmountCents   int64        `json:"p50_amount_cents"`
	TopIDs           []int        `json:"top_ids"`
	Regions          RegionCounts `json:"regions"`
}

// TransformResult is transform_data's result, groups in category order.
type TransformResult struct {
	Size   int              `json:"size"`
	Groups []TransformGroup `json:"groups"`
}

// TransformData generates, sorts, groups and aggregates size records exactly as
// CONTRACT.md ("transform_data") prescribes.
func TransformData(size int) TransformResult {
	rng := Xorshift32(transformSeed)
	records := make([]record, size)
	for i := range records {
		records[i] = record{
			id:       i,
			category: TransformCategories[rng.Next()%8],
			region:   int(rng.Next() % 4),
			amount:   int64(rng.Next() % 100000),
			quantity: int64(1 + rng.Next()%20),
		}
	}
	slices.SortFunc(records, func(a, b record) int {
		if c := strings.Compare(a.category, b.category); c != 0 {
			return c
		}
		if a.amount != b.amount {
			if a.amount > b.amount {
				return -1
			}
			return 1
		}
		return a.id - b.id
	})

	result := TransformResult{Size: size, Groups: []TransformGroup{}}
	for start := 0; start < len(records); {
		end := start
		for end < len(records) && records[end].category == records[start].category {
			end++
		}
		group := records[start:end]
		g := TransformGroup{
			Category:       group[0].category,
			Count:          len(group),
			MinAmountCents: group[len(group)-1].amount,
			MaxAmountCents: group[0].amount,
			P50AmountCents: group[len(group)/2].amount,
			TopIDs:         []int{},
		}
		for i, r := range group {
			g.TotalAmountCents += r.amount
			g.TotalQuantity += r.quantity
			g.RevenueCents += r.amount * r.quantity
			if i < 3 {
				g.TopIDs = append(g.TopIDs, r.id)
			}
			switch r.region {
			case 0:
				g.Regions.Apac++
			case 1:
				g.Regions.Emea++
			case 2:
				g.Regions.Latam++
			default:
				g.Regions.Na++
			}
		}
		g.MeanAmountCents = g.TotalAmountCents / int64(g.Count)
		result.Groups = append(result.Groups, g)
		start = end
	}
	return result
}

// CanonicalJSON encodes v with struct field order, no whitespace and no HTML
// escaping, which is the byte form every server must produce.
func CanonicalJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
