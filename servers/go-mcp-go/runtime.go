package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"time"
)

type runtimeInfo struct {
	Runtime struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"runtime"`
	PID            int          `json:"pid"`
	UptimeMs       int64        `json:"uptime_ms"`
	Parallelism    int          `json:"parallelism"`
	HeapUsedBytes  uint64       `json:"heap_used_bytes"`
	HeapTotalBytes uint64       `json:"heap_total_bytes"`
	RSSBytes       int64        `json:"rss_bytes"`
	GCCount        uint32       `json:"gc_count"`
	GCPauseTotalMs float64      `json:"gc_pause_total_ms"`
	GCPausesRecent [][2]float64 `json:"gc_pauses_recent"`
	Threads        int          `json:"threads"`
	Goroutines     int          `json:"goroutines"`
	MCP            struct {
		Stateless    bool `json:"stateless"`
		JSONResponse bool `json:"json_response"`
		Sessions     *int `json:"sessions"`
	} `json:"mcp"`
}

var startedAt = time.Now()

// readRuntimeInfo fills the /debug/runtime shape. RSS and threads come from
// /proc, as in every other server, so the numbers are comparable.
func readRuntimeInfo(cfg config, sessions func() int) runtimeInfo {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var info runtimeInfo
	info.Runtime.Name = "go"
	info.Runtime.Version = runtime.Version()
	info.PID = os.Getpid()
	info.UptimeMs = time.Since(startedAt).Milliseconds()
	info.Parallelism = runtime.GOMAXPROCS(0)
	info.HeapUsedBytes = ms.HeapAlloc
	info.HeapTotalBytes = ms.HeapSys
	info.RSSBytes = rssBytes()
	info.GCCount = ms.NumGC
	info.GCPauseTotalMs = float64(ms.PauseTotalNs) / 1e6
	info.GCPausesRecent = recentPauses(&ms)
	info.Threads = procThreads()
	info.Goroutines = runtime.NumGoroutine()
	info.MCP.Stateless = cfg.stateless
	info.MCP.JSONResponse = cfg.jsonResponse
	if !cfg.stateless {
		n := sessions()
		info.MCP.Sessions = &n
	}
	return info
}

// recentPausesKept is the contract's cap on gc_pauses_recent (section 7).
const recentPausesKept = 64

// recentPauses lists the newest collections' pauses as [number, ms], oldest first. MemStats keeps
// the last 256: collection n's pause is PauseNs[(n+255)%256].
func recentPauses(ms *runtime.MemStats) [][2]float64 {
	n := ms.NumGC
	first := uint32(1)
	if n > recentPausesKept {
		first = n - recentPausesKept + 1
	}
	pauses := make([][2]float64, 0, n-first+1)
	for i := first; i <= n; i++ {
		pauses = append(pauses, [2]float64{float64(i), float64(ms.PauseNs[(i+255)%256]) / 1e6})
	}
	return pauses
}

func rssBytes() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	fields := bytes.Fields(data)
	if len(fields) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

func procThreads() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("Threads:")); ok {
			n, err := strconv.Atoi(string(bytes.TrimSpace(rest)))
			if err == nil {
				return n
			}
		}
	}
	return -1
}
