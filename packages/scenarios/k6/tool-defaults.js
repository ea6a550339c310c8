// Each contract tool's default arguments: what the run form fills in, what the API and `perflab run`
// use when a call gives none, and what mcp-tool-call.js sends when run by hand without ARGS. One
// file for all three, so the arguments stored with a cell are the ones k6 sent.
// Plain JavaScript: k6 imports it beside the scripts, @perflab/scenarios through tool-defaults.d.ts.

/**
 * The validate_document benchmark document of servers/CONTRACT.md section 4.3: a valid order with
 * 20 items, so a cell measures a full validation rather than the early exit of an invalid input.
 * A copy of the vector "validate_document benchmark document" in servers/contract/vectors.json
 * (benchmark-document.test.ts checks they are equal).
 */
export const benchmarkDocument = {
  createdAt: "2026-03-14",
  customer: {
    address: {
      city: "London",
      country: "GB",
      postalCode: "NW1 6XE",
      street: "12 Analytical Engine Row",
    },
    email: "ada.lovelace@example.com",
    name: "Ada Lovelace",
    phone: "+442079460000",
  },
  id: "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b",
  items: [
    {
      discountPercent: 0,
      quantity: 1,
      sku: "SKU-1000",
      unitPriceCents: 199,
    },
    {
      discountPercent: 2.5,
      quantity: 2,
      sku: "SKU-1037",
      unitPriceCents: 449,
    },
    {
      discountPercent: 5,
      quantity: 3,
      sku: "SKU-1074",
      unitPriceCents: 699,
    },
    {
      discountPercent: 7.5,
      quantity: 4,
      sku: "SKU-1111",
      unitPriceCents: 949,
    },
    {
      discountPercent: 0,
      quantity: 5,
      sku: "SKU-1148",
      unitPriceCents: 1199,
    },
    {
      discountPercent: 2.5,
      quantity: 1,
      sku: "SKU-1185",
      unitPriceCents: 1449,
    },
    {
      discountPercent: 5,
      quantity: 2,
      sku: "SKU-1222",
      unitPriceCents: 1699,
    },
    {
      discountPercent: 7.5,
      quantity: 3,
      sku: "SKU-1259",
      unitPriceCents: 1949,
    },
    {
      discountPercent: 0,
      quantity: 4,
      sku: "SKU-1296",
      unitPriceCents: 2199,
    },
    {
      discountPercent: 2.5,
      quantity: 5,
      sku: "SKU-1333",
      unitPriceCents: 2449,
    },
    {
      discountPercent: 5,
      quantity: 1,
      sku: "SKU-1370",
      unitPriceCents: 2699,
    },
    {
      discountPercent: 7.5,
      quantity: 2,
      sku: "SKU-1407",
      unitPriceCents: 2949,
    },
    {
      discountPercent: 0,
      quantity: 3,
      sku: "SKU-1444",
      unitPriceCents: 3199,
    },
    {
      discountPercent: 2.5,
      quantity: 4,
      sku: "SKU-1481",
      unitPriceCents: 3449,
    },
    {
      discountPercent: 5,
      quantity: 5,
      sku: "SKU-1518",
      unitPriceCents: 3699,
    },
    {
      discountPercent: 7.5,
      quantity: 1,
      sku: "SKU-1555",
      unitPriceCents: 3949,
    },
    {
      discountPercent: 0,
      quantity: 2,
      sku: "SKU-1592",
      unitPriceCents: 4199,
    },
    {
      discountPercent: 2.5,
      quantity: 3,
      sku: "SKU-1629",
      unitPriceCents: 4449,
    },
    {
      discountPercent: 5,
      quantity: 4,
      sku: "SKU-1666",
      unitPriceCents: 4699,
    },
    {
      discountPercent: 7.5,
      quantity: 5,
      sku: "SKU-1703",
      unitPriceCents: 4949,
    },
  ],
  notes: "Leave at the front desk.",
  status: "paid",
  tags: ["priority", "gift-wrap", "b2b"],
};

/** Default arguments per contract tool. */
export const toolDefaults = {
  echo: { message: "hello" },
  fibonacci: { n: 20 },
  validate_document: { document: benchmarkDocument },
  transform_data: { size: 1000 },
  sleep: { ms: 10 },
  fetch_upstream: { delay_ms: 50 },
  search_products: { query: "lamp", limit: 10 },
  get_user_cart: { user_id: 42 },
  checkout: { user_id: 42, items: [{ product_id: 7, quantity: 2 }] },
  get_user: { id: 42 },
};
