// Package runtimeinfo reads the /debug/runtime report of CONTRACT.md section 7 for the Go servers:
// heap and GC pauses from the runtime, RSS and threads from /proc as in every other server.
package runtimeinfo

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"time"
)

// Info is the report's JSON shape.
type Info struct {
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
	// MCP is null for a server without an MCP transport (its manifest's protocols are ["http"]).
	MCP *MCP `json:"mcp"`
}

// MCP is an MCP server's transport mode; Sessions is null when stateless.
type MCP struct {
	Stateless    bool `json:"stateless"`
	JSONResponse bool `json:"json_response"`
	Sessions     *int `json:"sessions"`
}

var startedAt = time.Now()

// ReadMCP is the report of an MCP server; sessions counts the open ones and is called only when
// the server keeps sessions.
func ReadMCP(stateless, jsonResponse bool, sessions func() int) Info {
	info := Read()
	info.MCP = &MCP{Stateless: stateless, JSONResponse: jsonResponse}
	if !stateless {
		n := sessions()
		info.MCP.Sessions = &n
	}
	return info
}

// Read is the report of a server without MCP ("mcp": null). RSS and threads come from /proc, as in
// every other server, so the numbers are comparable.
func Read() Info {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var info Info
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
