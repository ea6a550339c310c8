// The contract's pure work (CONTRACT.md section 4), as servers/go computes it: each reference server
// is its own module, built alone in its folder, so it keeps its own copy; the vectors keep them equal.

package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// padAlphabet is the repeating padding of echo (CONTRACT.md, "echo").
const padAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// padMessage appends padAlphabet bytes until the UTF-8 length is padTo; a longer
// message is returned unchanged, never truncated.
func padMessage(message string, padTo int) string {
	missing := padTo - len(message)
	if missing <= 0 {
		return message
	}
	var b strings.Builder
	b.Grow(padTo)
	b.WriteString(message)
	for missing >= len(padAlphabet) {
		b.WriteString(padAlphabet)
		missing -= len(padAlphabet)
	}
	b.WriteString(padAlphabet[:missing])
	return b.String()
}

// fibonacci is deliberately the naive double recursion: it is the CPU-bound
// workload every server runs identically, so it must not be memoised.
func fibonacci(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	return fibonacci(n-1) + fibonacci(n-2)
}

// xorshift32 is Marsaglia's 13/17/5 generator; every runtime can reproduce it
// exactly with 32-bit unsigned arithmetic.
type xorshift32 uint32

func (x *xorshift32) next() uint32 {
	v := uint32(*x)
	v ^= v << 13
	v ^= v >> 17
	v ^= v << 5
	*x = xorshift32(v)
	return v
}

var (
	transformCategories = []string{"books", "electronics", "garden", "grocery", "health", "home", "sports", "toys"}
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

type regionCounts struct {
	Apac  int `json:"apac"`
	Emea  int `json:"emea"`
	Latam int `json:"latam"`
	Na    int `json:"na"`
}

type transformGroup struct {
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
	Regions          regionCounts `json:"regions"`
}

type transformResult struct {
	Size   int              `json:"size"`
	Groups []transformGroup `json:"groups"`
}

// transformData generates, sorts, groups and aggregates size records exactly as
// CONTRACT.md ("transform_data") prescribes.
func transformData(size int) transformResult {
	rng := xorshift32(transformSeed)
	records := make([]record, size)
	for i := range records {
		records[i] = record{
			id:       i,
			category: transformCategories[rng.next()%8],
			region:   int(rng.next() % 4),
			amount:   int64(rng.next() % 100000),
			quantity: int64(1 + rng.next()%20),
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

	result := transformResult{Size: size, Groups: []transformGroup{}}
	for start := 0; start < len(records); {
		end := start
		for end < len(records) && records[end].category == records[start].category {
			end++
		}
		group := records[start:end]
		g := transformGroup{
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

// canonicalJSON encodes v with struct field order, no whitespace and no HTML
// escaping, which is the byte form every server must produce.
func canonicalJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
