package upstream

// What the I/O tools of CONTRACT.md section 4 read from the fixtures, and how they fail.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// Product is a fixture API product.
type Product struct {
	ID         int    `json:"id"`
	Name       string `json:"name"`
	Category   string `json:"category"`
	PriceCents int64  `json:"price_cents"`
	Stock      int64  `json:"stock"`
}

// Popular is a product of the Redis popularity ranking with its score.
type Popular struct {
	ProductID int   `json:"product_id"`
	Score     int64 `json:"score"`
}

// User is a row of the Postgres users table, as get_user and /rest/users/{id} answer it.
type User struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	CreatedAt string `json:"created_at"`
}

// ErrNotFound is a missing users row: a tool error, or 404 on the REST route.
var ErrNotFound = fmt.Errorf("not_found")

// User reads a users row: ErrNotFound when there is none.
func (b *Clients) User(ctx context.Context, id int) (User, error) {
	pool, err := b.Postgres()
	if err != nil {
		return User{}, err
	}
	// Two budgets, as in every server (CONTRACT.md section 6): up to 5 s for a
	// free connection, then up to 5 s for the query.
	acquireCtx, cancelAcquire := context.WithTimeout(ctx, 5*time.Second)
	defer cancelAcquire()
	conn, err := pool.Acquire(acquireCtx)
	if err != nil {
		return User{}, fmt.Errorf("%w: postgres: %v", ErrBackend, err)
	}
	defer conn.Release()
	queryCtx, cancelQuery := context.WithTimeout(ctx, 5*time.Second)
	defer cancelQuery()
	var (
		u       User
		created time.Time
	)
	err = conn.QueryRow(queryCtx, "SELECT id, name, email, created_at FROM users WHERE id = $1", id).Scan(&u.ID, &u.Name, &u.Email, &created)
	if err == pgx.ErrNoRows {
		return User{}, fmt.Errorf("%w: user %d", ErrNotFound, id)
	}
	if err != nil {
		return User{}, fmt.Errorf("%w: postgres: %v", ErrBackend, err)
	}
	u.CreatedAt = created.UTC().Format("2006-01-02T15:04:05Z")
	return u, nil
}

// RecommendedProduct is the product get_user_cart fetches from the API.
func RecommendedProduct(userID int) int { return 1 + (userID*7919)%100000 }

// DecodeAPI decodes a fixture API answer; malformed JSON is an upstream_error.
func DecodeAPI(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("upstream_error: fixture API answered malformed JSON: %v", err)
	}
	return nil
}

// PopularFrom reads a ZRANGE answer of the popularity ranking.
func PopularFrom(zs []redis.Z) ([]Popular, error) {
	out := make([]Popular, 0, len(zs))
	for _, z := range zs {
		member, _ := z.Member.(string)
		id, err := strconv.Atoi(member)
		if err != nil {
			return nil, fmt.Errorf("%w: malformed popularity member %q", ErrBackend, member)
		}
		out = append(out, Popular{ProductID: id, Score: int64(z.Score)})
	}
	return out, nil
}

// FirstErr is the first of errs that is not nil.
func FirstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// RedisFail tags a failed Redis call as a backend failure.
func RedisFail(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: redis: %v", ErrBackend, err)
}
