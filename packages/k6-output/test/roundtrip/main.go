// Command roundtrip prints histograms encoded exactly as the perflab output
// encodes them, with the statistics a decoder must reproduce, as JSON.
package main

import (
	"encoding/json"
	"os"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

type fixture struct {
	Name        string           `json:"name"`
	Hist        string           `json:"hist"`
	TotalCount  int64            `json:"totalCount"`
	Min         int64            `json:"min"`
	Max         int64            `json:"max"`
	Percentiles map[string]int64 `json:"percentiles"`
}

func build(name string, values map[int64]int64) fixture {
	// Same bounds as the output: 1 µs .. 1 h, 3 significant digits.
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	for v, n := range values {
		if err := h.RecordValues(v, n); err != nil {
			panic(err)
		}
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		panic(err)
	}
	pcts := map[string]int64{}
	for _, p := range []float64{50, 90, 99, 99.9, 100} {
		pcts[jsonFloat(p)] = h.ValueAtPercentile(p)
	}
	return fixture{Name: name, Hist: string(enc), TotalCount: h.TotalCount(), Min: h.Min(), Max: h.Max(), Percentiles: pcts}
}

func jsonFloat(p float64) string {
	b, _ := json.Marshal(p)
	return string(b)
}

func main() {
	wide := map[int64]int64{}
	for v := int64(1); v < 3_000_000_000; v = v*3/2 + 1 {
		wide[v] = v%7 + 1
	}
	out := []fixture{
		build("empty", nil),
		build("single", map[int64]int64{1234: 1}),
		build("latency-like", map[int64]int64{180: 4000, 250: 3000, 900: 500, 15_000: 20, 2_000_000: 1}),
		build("wide-range", wide),
		build("large-counts", map[int64]int64{500: 3_000_000_000, 3_600_000_000: 2}),
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
