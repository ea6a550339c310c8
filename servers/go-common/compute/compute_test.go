package compute

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPadMessageReachesExactByteLength(t *testing.T) {
	for _, size := range []int{0, 1, 63, 64, 65, 1024, 10240, 102400, 1048576} {
		got := PadMessage("hello", size)
		want := max(size, 5)
		if len(got) != want {
			t.Fatalf("pad to %d: got %d bytes", size, len(got))
		}
		if !strings.HasPrefix(got, "hello") {
			t.Fatalf("pad to %d: message not kept at the front", size)
		}
	}
	if got := PadMessage("", 70); got != PadAlphabet+"ABCDEF" {
		t.Fatalf("padding restarts the alphabet wrongly: %q", got)
	}
}

func TestPadMessageCountsUTF8BytesAndNeverTruncates(t *testing.T) {
	got := PadMessage("héllo", 8) // é is 2 bytes, so 6 bytes + 2 padding
	if got != "héllo"+"AB" || !utf8.ValidString(got) {
		t.Fatalf("got %q", got)
	}
	if got := PadMessage("a long message", 3); got != "a long message" {
		t.Fatalf("a message longer than pad_to_bytes must be returned unchanged, got %q", got)
	}
}

func TestFibonacciMatchesKnownValues(t *testing.T) {
	known := map[int]int64{0: 0, 1: 1, 2: 1, 10: 55, 20: 6765, 30: 832040, 35: 9227465}
	for n, want := range known {
		if got := Fibonacci(n); got != want {
			t.Fatalf("Fibonacci(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestXorshift32FirstOutputs(t *testing.T) {
	rng := Xorshift32(42)
	want := []uint32{11355432, 2836018348, 476557059, 3648046016, 3759983556}
	for i, w := range want {
		if got := rng.Next(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}

func TestTransformDataAggregatesEveryRecordOnce(t *testing.T) {
	res := TransformData(100000)
	count, prev := 0, ""
	for _, g := range res.Groups {
		if g.Category <= prev {
			t.Fatalf("groups not in category order: %q after %q", g.Category, prev)
		}
		prev = g.Category
		count += g.Count
		if r := g.Regions; r.Apac+r.Emea+r.Latam+r.Na != g.Count {
			t.Fatalf("%s: region counts do not add up to %d", g.Category, g.Count)
		}
		if g.MinAmountCents > g.P50AmountCents || g.P50AmountCents > g.MaxAmountCents || len(g.TopIDs) != 3 {
			t.Fatalf("%s: inconsistent aggregates %+v", g.Category, g)
		}
	}
	if count != 100000 || len(res.Groups) != 8 {
		t.Fatalf("got %d records in %d groups", count, len(res.Groups))
	}
}
