// Package upstream is the Go servers' clients of the fixtures (CONTRACT.md section 6): Redis, the
// fixture API and Postgres, with the contract's pools and timeouts, created on first use.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// ErrBackend marks failures of Redis, the fixture API or Postgres; tools turn
// them into tool errors with the "backend_unavailable:" prefix.
var ErrBackend = errors.New("backend_unavailable")

// Clients are created on first use so the server starts, and the pure tools
// work, when none of the fixtures are running.
type Clients struct {
	redisOnce sync.Once
	redis     *redis.Client
	redisErr  error

	pgOnce sync.Once
	pg     *pgxpool.Pool
	pgErr  error

	apiURL string
	http   *http.Client
}

// New reads the fixtures' addresses from REDIS_URL, FIXTURE_API_URL and DATABASE_URL.
func New() *Clients {
	return &Clients{
		apiURL: os.Getenv("FIXTURE_API_URL"),
		// One pooled client for every upstream call; Go's default of 2 idle
		// connections per host would force new TCP connections under load.
		http: &http.Client{
			Timeout: 15 * time.Second,
			Transport: &http.Transport{
				// The contract's 2 s connect limit; a zero Dialer would wait for the OS.
				DialContext: (&net.Dialer{Timeout: 2 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				// Every idle connection is kept (CONTRACT.md section 6): more than the
				// matrix's 5,000 VUs, so a burst never churns TCP connections.
				MaxIdleConns:        8192,
				MaxIdleConnsPerHost: 8192,
				IdleConnTimeout:     90 * time.Second,
			},
		},
	}
}

// Redis is the pool of 64 connections, or why there is none.
func (b *Clients) Redis() (*redis.Client, error) {
	b.redisOnce.Do(func() {
		url := os.Getenv("REDIS_URL")
		if url == "" {
			b.redisErr = fmt.Errorf("%w: REDIS_URL is not set", ErrBackend)
			return
		}
		opts, err := redis.ParseURL(url)
		if err != nil {
			b.redisErr = fmt.Errorf("%w: REDIS_URL: %v", ErrBackend, err)
			return
		}
		opts.PoolSize = 64
		// The pipeline of get_user_cart runs on the same 64 connections: go-redis
		// would otherwise add a pool of 10 of its own.
		opts.PipelinePoolSize = -1
		opts.DialTimeout = 2 * time.Second
		opts.ReadTimeout = 5 * time.Second
		opts.WriteTimeout = 5 * time.Second
		// A command that fails or times out is a tool error at once (CONTRACT.md
		// section 6): go-redis retries 3 times by default, read timeouts too, so
		// one call could take 20 s. Waiting for a free connection: 5 s, not 6.
		opts.MaxRetries = -1
		opts.PoolTimeout = 5 * time.Second
		b.redis = redis.NewClient(opts)
	})
	return b.redis, b.redisErr
}

// Postgres is the pool of at most 25 connections, or why there is none.
func (b *Clients) Postgres() (*pgxpool.Pool, error) {
	b.pgOnce.Do(func() {
		url := os.Getenv("DATABASE_URL")
		if url == "" {
			b.pgErr = fmt.Errorf("%w: DATABASE_URL is not set", ErrBackend)
			return
		}
		cfg, err := pgxpool.ParseConfig(url)
		if err != nil {
			b.pgErr = fmt.Errorf("%w: DATABASE_URL: %v", ErrBackend, err)
			return
		}
		cfg.MaxConns = 25
		cfg.ConnConfig.ConnectTimeout = 2 * time.Second
		b.pg, b.pgErr = pgxpool.NewWithConfig(context.Background(), cfg)
		if b.pgErr != nil {
			b.pgErr = fmt.Errorf("%w: %v", ErrBackend, b.pgErr)
		}
	})
	return b.pg, b.pgErr
}

// API calls the fixture API and returns the body of a 2xx answer.
func (b *Clients) API(ctx context.Context, method, path string, body io.Reader) ([]byte, error) {
	if b.apiURL == "" {
		return nil, fmt.Errorf("%w: FIXTURE_API_URL is not set", ErrBackend)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.apiURL+path, body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBackend, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: fixture API: %v", ErrBackend, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: fixture API: %v", ErrBackend, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("upstream_error: fixture API %s %s answered HTTP %d", method, path, resp.StatusCode)
	}
	return data, nil
}

// Close ends every client created so far.
func (b *Clients) Close() {
	if b.redis != nil {
		b.redis.Close()
	}
	if b.pg != nil {
		b.pg.Close()
	}
	b.http.CloseIdleConnections()
}
