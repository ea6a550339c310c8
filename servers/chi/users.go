package main

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"perflab/servers/go-common/rest"
)

// userStore is the fixtures' users table through one pgx pool, created on first use so the
// server starts, and its other routes work, without Postgres (CONTRACT.md section 1).
type userStore struct {
	url    string
	once   sync.Once
	pool   *pgxpool.Pool
	poolEr error
}

func newUserStore(url string) *userStore { return &userStore{url: url} }

var errNoDatabase = errors.New("DATABASE_URL is not set")

// connect makes the pool with the contract's budget (section 6): at most 25 connections, as the
// REST study's pgx pool, opened on demand, 2 s to connect.
func (s *userStore) connect() (*pgxpool.Pool, error) {
	s.once.Do(func() {
		if s.url == "" {
			s.poolEr = errNoDatabase
			return
		}
		cfg, err := pgxpool.ParseConfig(s.url)
		if err != nil {
			s.poolEr = err
			return
		}
		cfg.MaxConns = 25
		cfg.ConnConfig.ConnectTimeout = 2 * time.Second
		s.pool, s.poolEr = pgxpool.NewWithConfig(context.Background(), cfg)
	})
	return s.pool, s.poolEr
}

func (s *userStore) close() {
	if s.pool != nil {
		s.pool.Close()
	}
}

type user struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	CreatedAt string `json:"created_at"`
}

// lookup runs the contract's query with two budgets: up to 5 s for a free connection, then up to
// 5 s for the query. pgx prepares and caches the statement per connection.
func (s *userStore) lookup(ctx context.Context, id int) (user, error) {
	pool, err := s.connect()
	if err != nil {
		return user{}, err
	}
	acquireCtx, cancelAcquire := context.WithTimeout(ctx, 5*time.Second)
	defer cancelAcquire()
	conn, err := pool.Acquire(acquireCtx)
	if err != nil {
		return user{}, err
	}
	defer conn.Release()
	queryCtx, cancelQuery := context.WithTimeout(ctx, 5*time.Second)
	defer cancelQuery()
	var (
		u       user
		created time.Time
	)
	err = conn.QueryRow(queryCtx, "SELECT id, name, email, created_at FROM users WHERE id = $1", id).
		Scan(&u.ID, &u.Name, &u.Email, &created)
	if err != nil {
		return user{}, err
	}
	u.CreatedAt = created.UTC().Format("2006-01-02T15:04:05Z")
	return u, nil
}

// get answers GET /rest/users/{id}: 400 for an id outside ^[1-9][0-9]{0,8}$, 404 without a row,
// 503 when Postgres is missing or failing.
func (s *userStore) get(w http.ResponseWriter, r *http.Request) {
	rest.User(w, r.Context(), chi.URLParam(r, "id"), s.lookup, pgx.ErrNoRows)
}
