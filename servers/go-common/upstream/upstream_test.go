package upstream

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestCartItemsSortsByProductAndCountsQuantities(t *testing.T) {
	items, count, err := cartItems(map[string]string{"42": "2", "7": "1", "100000": "3"})
	want := []LineItem{{7, 1}, {42, 2}, {100000, 3}}
	if err != nil || count != 6 || !slices.Equal(items, want) {
		t.Fatalf("got %v, %d, %v", items, count, err)
	}
	if _, _, err := cartItems(map[string]string{"7": "x"}); !errors.Is(err, ErrBackend) {
		t.Fatalf("a malformed entry: %v", err)
	}
}

func TestPopularFromReadsMembersAndRefusesOthers(t *testing.T) {
	got, err := PopularFrom([]redis.Z{{Member: "13", Score: 40}, {Member: "2", Score: 39}})
	if err != nil || !slices.Equal(got, []Popular{{13, 40}, {2, 39}}) {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := PopularFrom([]redis.Z{{Member: "x", Score: 1}}); !errors.Is(err, ErrBackend) {
		t.Fatalf("a malformed member: %v", err)
	}
}

// With no fixture configured, every call is a backend_unavailable error, and the server still starts.
func TestCallsWithoutFixturesAreBackendUnavailable(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("FIXTURE_API_URL", "")
	t.Setenv("DATABASE_URL", "")
	b := New()
	defer b.Close()
	ctx := context.Background()
	_, delayErr := b.Delay(ctx, 1)
	_, searchErr := b.Search(ctx, "lamp", 3)
	_, cartErr := b.UserCart(ctx, 1)
	_, orderErr := b.Checkout(ctx, 1, []LineItem{{1, 1}})
	_, userErr := b.User(ctx, 1)
	for i, err := range []error{delayErr, searchErr, cartErr, orderErr, userErr} {
		if !errors.Is(err, ErrBackend) || !strings.HasPrefix(err.Error(), "backend_unavailable:") {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

func TestRecommendedProductStaysInTheCatalog(t *testing.T) {
	for _, id := range []int{1, 13, 1000} {
		if p := RecommendedProduct(id); p < 1 || p > 100000 {
			t.Fatalf("user %d: product %d", id, p)
		}
	}
}
