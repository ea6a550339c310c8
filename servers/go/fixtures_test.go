package main

// A test-only implementation of the fixture data of CONTRACT.md ("Fixtures"),
// used to publish golden fixture vectors that the fixtures package is checked against.

import (
	"fmt"

	"perflab/servers/go-common/compute"
	"perflab/servers/go-common/upstream"
)

var (
	productAdjectives = []string{"amber", "bold", "crisp", "dusty", "eager", "fancy", "gentle", "hollow", "icy", "jolly", "keen", "lucky", "mellow", "noble", "plain", "quiet"}
	productNouns      = []string{"anchor", "basket", "candle", "drum", "easel", "fork", "globe", "hammer", "jar", "kettle", "lamp", "mirror", "needle", "oven", "pillow", "quilt"}
)

type fixtureProduct struct {
	upstream.Product
	adjective, noun string
}

func generateProducts() []fixtureProduct {
	rng := compute.Xorshift32(20240601)
	out := make([]fixtureProduct, 0, 100000)
	for id := 1; id <= 100000; id++ {
		adj := productAdjectives[rng.Next()%16]
		noun := productNouns[rng.Next()%16]
		cat := compute.TransformCategories[rng.Next()%8]
		price := int64(99 + rng.Next()%49901)
		stock := int64(rng.Next() % 500)
		out = append(out, fixtureProduct{upstream.Product{ID: id, Name: adj + " " + noun, Category: cat, PriceCents: price, Stock: stock}, adj, noun})
	}
	return out
}

func searchProducts(all []fixtureProduct, q string, limit int) (int, []upstream.Product) {
	total, items := 0, []upstream.Product{}
	for _, p := range all {
		if p.adjective == q || p.noun == q || p.Category == q {
			total++
			if len(items) < limit {
				items = append(items, p.Product)
			}
		}
	}
	return total, items
}

type redisSeed struct {
	carts      map[int]map[int]int
	history    map[int][]string
	popularity map[int]int64
}

func generateRedisSeed() redisSeed {
	rng := compute.Xorshift32(1000003)
	s := redisSeed{map[int]map[int]int{}, map[int][]string{}, map[int]int64{}}
	for uid := 1; uid <= 1000; uid++ {
		n := 1 + int(rng.Next()%5)
		s.carts[uid] = map[int]int{}
		for range n {
			pid := 1 + int(rng.Next()%100000)
			qty := 1 + int(rng.Next()%5)
			s.carts[uid][pid] = qty
		}
		for range 5 {
			pid := 1 + int(rng.Next()%100000)
			qty := 1 + int(rng.Next()%3)
			s.history[uid] = append(s.history[uid], fmt.Sprintf(`{"items":[{"product_id":%d,"quantity":%d}]}`, pid, qty))
		}
	}
	for range 1000 {
		pid := 1 + int(rng.Next()%100000)
		s.popularity[pid] = int64(rng.Next() % 10000)
	}
	return s
}
