package runtimeinfo

import (
	"runtime"
	"testing"
)

// Forced collections must each appear once in gc_pauses_recent, numbered on from the last seen,
// with a pause no longer than the total.
func TestRecentPausesListsEachForcedCollectionOnce(t *testing.T) {
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const forced = 5
	for range forced {
		runtime.GC()
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	pauses := recentPauses(&after)
	var fresh [][2]float64
	for _, p := range pauses {
		if p[0] > float64(before.NumGC) {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) != int(after.NumGC-before.NumGC) || len(fresh) < forced {
		t.Fatalf("%d new pauses listed for %d new collections: %v", len(fresh), after.NumGC-before.NumGC, pauses)
	}
	longest := 0.0
	for i, p := range pauses {
		if i > 0 && p[0] != pauses[i-1][0]+1 {
			t.Fatalf("numbers not consecutive: %v", pauses)
		}
		longest = max(longest, p[1])
	}
	total := float64(after.PauseTotalNs) / 1e6
	if longest <= 0 || longest > total {
		t.Fatalf("longest pause %v ms, total %v ms", longest, total)
	}
}

func TestRecentPausesKeepsTheNewest64(t *testing.T) {
	for range recentPausesKept + 3 {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	pauses := recentPauses(&ms)
	if len(pauses) != recentPausesKept || pauses[len(pauses)-1][0] != float64(ms.NumGC) {
		t.Fatalf("%d pauses, last %v, NumGC %d", len(pauses), pauses[len(pauses)-1], ms.NumGC)
	}
}
