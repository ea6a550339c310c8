// Package contract holds the ten tools' descriptions and input schemas, verbatim from CONTRACT.md
// section 4, so tools/list is the same on every Go server whatever builds its tool list.
package contract

// Tool is a tool's description and its input schema as JSON.
type Tool struct{ Description, Schema string }

// Tools maps each tool's name to its description and input schema.
var Tools = map[string]Tool{
	"echo": {"Returns the message, padded to pad_to_bytes bytes.",
		`{"type":"object","properties":{"message":{"type":"string"},"pad_to_bytes":{"type":"integer","minimum":0,"maximum":1048576}},"required":["message"]}`},
	"fibonacci": {"Computes the n-th Fibonacci number by naive recursion.",
		`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":35}},"required":["n"]}`},
	"validate_document": {"Validates a document against the perflab order schema.",
		`{"type":"object","properties":{"document":{"type":"object"}},"required":["document"]}`},
	"transform_data": {"Generates, sorts, groups and aggregates size records.",
		`{"type":"object","properties":{"size":{"type":"integer","minimum":1,"maximum":100000}},"required":["size"]}`},
	"sleep": {"Waits ms milliseconds, like a database call.",
		`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":10000}},"required":["ms"]}`},
	"fetch_upstream": {"Fetches the fixture API's /delay endpoint.",
		`{"type":"object","properties":{"delay_ms":{"type":"integer","minimum":0,"maximum":10000}},"required":["delay_ms"]}`},
	"search_products": {"Searches products and returns the most popular ones.",
		`{"type":"object","properties":{"query":{"type":"string","pattern":"^[a-z]{1,32}$"},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},"required":["query"]}`},
	"get_user_cart": {"Returns a user's cart, recommended product and recent orders.",
		`{"type":"object","properties":{"user_id":{"type":"integer","minimum":1,"maximum":1000}},"required":["user_id"]}`},
	"checkout": {"Prices items and records an order for a user.",
		`{"type":"object","properties":{"user_id":{"type":"integer","minimum":1,"maximum":1000},"items":{"type":"array","minItems":1,"maxItems":10,"items":{"type":"object","properties":{"product_id":{"type":"integer","minimum":1,"maximum":100000},"quantity":{"type":"integer","minimum":1,"maximum":10}},"required":["product_id","quantity"]}}},"required":["user_id","items"]}`},
	"get_user": {"Looks up a user by primary key in Postgres.",
		`{"type":"object","properties":{"id":{"type":"integer","minimum":1,"maximum":100000}},"required":["id"]}`},
}
