package dev.perflab.server;

import java.math.BigDecimal;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.resps.Tuple;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The ten tools of CONTRACT.md section 4: definitions and handlers returning the result TEXT. */
final class Tools {
  static final int MAX_ECHO_BYTES = 1 << 20;

  record Def(String name, String description, String inputSchema) {}

  /** Copied verbatim from CONTRACT.md so tools/list is the same on every server. */
  static final List<Def> DEFS = List.of(
      new Def("echo", "Returns the message, padded to pad_to_bytes bytes.",
          "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},\"pad_to_bytes\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1048576}},\"required\":[\"message\"]}"),
      new Def("fibonacci", "Computes the n-th Fibonacci number by naive recursion.",
          "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":35}},\"required\":[\"n\"]}"),
      new Def("validate_document", "Validates a document against the perflab order schema.",
          "{\"type\":\"object\",\"properties\":{\"document\":{\"type\":\"object\"}},\"required\":[\"document\"]}"),
      new Def("transform_data", "Generates, sorts, groups and aggregates size records.",
          "{\"type\":\"object\",\"properties\":{\"size\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000}},\"required\":[\"size\"]}"),
      new Def("sleep", "Waits ms milliseconds, like a database call.",
          "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000}},\"required\":[\"ms\"]}"),
      new Def("fetch_upstream", "Fetches the fixture API's /delay endpoint.",
          "{\"type\":\"object\",\"properties\":{\"delay_ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000}},\"required\":[\"delay_ms\"]}"),
      new Def("search_products", "Searches products and returns the most popular ones.",
          "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"pattern\":\"^[a-z]{1,32}$\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":10}},\"required\":[\"query\"]}"),
      new Def("get_user_cart", "Returns a user's cart, recommended product and recent orders.",
          "{\"type\":\"object\",\"properties\":{\"user_id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}},\"required\":[\"user_id\"]}"),
      new Def("checkout", "Prices items and records an order for a user.",
          "{\"type\":\"object\",\"properties\":{\"user_id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000},\"items\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":10,\"items\":{\"type\":\"object\",\"properties\":{\"product_id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000},\"quantity\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10}},\"required\":[\"product_id\",\"quantity\"]}}},\"required\":[\"user_id\",\"items\"]}"),
      new Def("get_user", "Looks up a user by primary key in Postgres.",
          "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000}},\"required\":[\"id\"]}"));

  private static final Pattern QUERY = Pattern.compile("[a-z]{1,32}");

  private final Backends backends;
  private final DocumentValidator validator;
  private final JsonMapper mapper = JsonMapper.shared();

  Tools(Backends backends, DocumentValidator validator) {
    this.backends = backends;
    this.validator = validator;
  }

  /** Runs one tool on the calling (request) thread and returns its TEXT. */
  String call(String name, Map<String, Object> args) throws ToolException {
    Map<String, Object> a = args == null ? Map.of() : args;
    return switch (name) {
      case "echo" -> echo(a);
      case "fibonacci" -> {
        int n = integer(a, "n", 0, 35, null);
        yield new Json().beginObject().field("n", n).field("value", Compute.fibonacci(n)).endObject().toString();
      }
      case "validate_document" -> validateDocument(a);
      case "transform_data" -> Compute.transformData(integer(a, "size", 1, 100000, null));
      case "sleep" -> sleep(a);
      case "fetch_upstream" -> {
        int delay = integer(a, "delay_ms", 0, 10000, null);
        yield backends.api("GET", "/delay?ms=" + delay, null);
      }
      case "search_products" -> searchProducts(a);
      case "get_user_cart" -> getUserCart(a);
      case "checkout" -> checkout(a);
      case "get_user" -> backends.lookupUser(integer(a, "id", 1, 100000, null));
      default -> throw ToolException.invalid("unknown tool " + name);
    };
  }

  private String echo(Map<String, Object> a) throws ToolException {
    if (!(a.get("message") instanceof String message)) {
      throw ToolException.invalid("message must be a string");
    }
    int length = message.length() > MAX_ECHO_BYTES ? MAX_ECHO_BYTES + 1 : Compute.utf8Length(message);
    if (length > MAX_ECHO_BYTES) {
      throw ToolException.invalid("message is longer than " + MAX_ECHO_BYTES + " bytes");
    }
    return Compute.padMessage(message, length, integer(a, "pad_to_bytes", 0, MAX_ECHO_BYTES, 0));
  }

  private String validateDocument(Map<String, Object> a) throws ToolException {
    if (!(a.get("document") instanceof Map<?, ?> document)) {
      throw ToolException.invalid("document must be an object");
    }
    return validator.validate(mapper.valueToTree(document));
  }

  /**
   * Blocks this request thread for ms: the servlet transport holds the thread until the
   * response is written in any case, so a timer would not free it sooner.
   */
  private String sleep(Map<String, Object> a) throws ToolException {
    int ms = integer(a, "ms", 0, 10000, null);
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ToolException.invalid("sleep interrupted");
    }
    return new Json().beginObject().field("slept_ms", ms).endObject().toString();
  }

  private String searchProducts(Map<String, Object> a) throws ToolException {
    int limit = integer(a, "limit", 1, 50, 10);
    if (!(a.get("query") instanceof String query) || !QUERY.matcher(query).matches()) {
      throw ToolException.invalid("query must match ^[a-z]{1,32}$");
    }
    RedisClient redis = backends.redis();
    // A: the API call runs on the HTTP client while B, the Redis read, runs on this thread.
    String path = "/products/search?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&limit=" + limit;
    CompletableFuture<HttpResponse<String>> api = backends.apiStart("GET", path, null);
    List<Tuple> top = null;
    JedisException redisError = null;
    try {
      top = redis.zrevrangeWithScores("products:popularity", 0, 4);
    } catch (JedisException e) {
      redisError = e;
    }
    JsonNode found = parseUpstream(Backends.await(api, "GET", path));
    if (redisError != null) {
      throw redisFailure(redisError);
    }
    JsonNode items = found.path("items");
    if (!found.path("total").isIntegralNumber() || !items.isArray()) {
      throw ToolException.upstream("fixture API answered an unexpected search shape");
    }
    Json out = new Json(1024).beginObject()
        .field("query", query)
        .field("total", found.get("total").longValue())
        .name("items").beginArray();
    for (JsonNode item : items) {
      writeProduct(out, item);
    }
    out.endArray().name("popular").beginArray();
    for (Tuple t : top) {
      out.beginObject().field("product_id", redisInt(t.getElement())).field("score", (long) t.getScore()).endObject();
    }
    return out.endArray().endObject().toString();
  }

  private String getUserCart(Map<String, Object> a) throws ToolException {
    int userId = integer(a, "user_id", 1, 1000, null);
    RedisClient redis = backends.redis();
    String path = "/products/" + (1 + (userId * 7919) % 100000);
    CompletableFuture<HttpResponse<String>> api = backends.apiStart("GET", path, null);
    // Three independent requests in flight at once, as in the other servers: B, the API call, on the
    // HTTP client; C, LRANGE, on a Redis thread; A, HGETALL, on this thread (each its own command on
    // its own pooled connection, not one pipeline).
    CompletableFuture<List<String>> historyReply =
        Backends.redisStart(() -> redis.lrange("user:" + userId + ":history", -5, -1));
    Map<String, String> cart = null;
    JedisException cartError = null;
    try {
      cart = redis.hgetAll("user:" + userId + ":cart");
    } catch (JedisException e) {
      cartError = e;
    }
    String productBody = null;
    ToolException apiError = null;
    try {
      productBody = Backends.await(api, "GET", path);
    } catch (ToolException e) {
      apiError = e;
    }
    List<String> history = null;
    JedisException historyError = null;
    try {
      history = Backends.awaitRedis(historyReply);
    } catch (JedisException e) {
      historyError = e;
    }
    if (cartError != null) {
      throw redisFailure(cartError);
    }
    if (apiError != null) {
      throw apiError;
    }
    if (historyError != null) {
      throw redisFailure(historyError);
    }
    TreeMap<Integer, Integer> items = new TreeMap<>();
    long count = 0;
    for (Map.Entry<String, String> e : cart.entrySet()) {
      int qty = redisInt(e.getValue());
      items.put(redisInt(e.getKey()), qty);
      count += qty;
    }
    Json out = new Json(1024).beginObject().field("user_id", userId).name("items").beginArray();
    for (Map.Entry<Integer, Integer> e : items.entrySet()) {
      out.beginObject().field("product_id", e.getKey()).field("quantity", e.getValue()).endObject();
    }
    out.endArray().field("item_count", count).name("recommended");
    writeProduct(out, parseUpstream(productBody));
    out.name("recent_orders").beginArray();
    for (String order : history) {
      try {
        mapper.readTree(order);
      } catch (JacksonException e) {
        throw ToolException.backend("malformed history entry");
      }
      out.raw(order);
    }
    return out.endArray().endObject().toString();
  }

  private String checkout(Map<String, Object> a) throws ToolException {
    int userId = integer(a, "user_id", 1, 1000, null);
    if (!(a.get("items") instanceof List<?> rawItems) || rawItems.isEmpty() || rawItems.size() > 10) {
      throw ToolException.invalid("items must hold 1..10 entries");
    }
    List<int[]> items = new ArrayList<>(rawItems.size());
    long count = 0;
    for (Object raw : rawItems) {
      if (!(raw instanceof Map<?, ?> m)) {
        throw ToolException.invalid("items must be objects");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> item = (Map<String, Object>) m;
      int[] line = {integer(item, "product_id", 1, 100000, null), integer(item, "quantity", 1, 10, null)};
      items.add(line);
      count += line[1];
    }
    RedisClient redis = backends.redis();
    Json orderJson = new Json(256).beginObject().name("items").beginArray();
    for (int[] line : items) {
      orderJson.beginObject().field("product_id", line[0]).field("quantity", line[1]).endObject();
    }
    String order = orderJson.endArray().endObject().toString();

    CompletableFuture<HttpResponse<String>> api = backends.apiStart("POST", "/cart/calculate", order);
    Long orderNumber = null;
    JedisException redisError = null;
    String history = "user:" + userId + ":history";
    try (Pipeline p = redis.pipelined()) {
      Response<Long> incr = p.incr("orders:count");
      p.rpush(history, order);
      p.ltrim(history, -50, -1);
      for (int[] line : items) {
        p.zincrby("products:popularity", line[1], Integer.toString(line[0]));
      }
      p.sync();
      orderNumber = incr.get();
    } catch (JedisException e) {
      redisError = e;
    }
    JsonNode priced = parseUpstream(Backends.await(api, "POST", "/cart/calculate"));
    if (redisError != null) {
      throw redisFailure(redisError);
    }
    return new Json(256).beginObject()
        .field("order_number", orderNumber)
        .field("user_id", userId)
        .field("item_count", count)
        .field("subtotal_cents", upstreamLong(priced, "subtotal_cents"))
        .field("tax_cents", upstreamLong(priced, "tax_cents"))
        .field("total_cents", upstreamLong(priced, "total_cents"))
        .endObject().toString();
  }

  /** PRODUCT is re-serialised in the contract's key order, whatever order the API used. */
  private static void writeProduct(Json out, JsonNode p) throws ToolException {
    if (!p.path("name").isString() || !p.path("category").isString()) {
      throw ToolException.upstream("fixture API answered a malformed product");
    }
    out.beginObject()
        .field("id", upstreamLong(p, "id"))
        .field("name", p.get("name").stringValue())
        .field("category", p.get("category").stringValue())
        .field("price_cents", upstreamLong(p, "price_cents"))
        .field("stock", upstreamLong(p, "stock"))
        .endObject();
  }

  private static long upstreamLong(JsonNode node, String field) throws ToolException {
    JsonNode v = node.path(field);
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw ToolException.upstream("fixture API answered no integer " + field);
    }
    return v.longValue();
  }

  private JsonNode parseUpstream(String body) throws ToolException {
    try {
      JsonNode node = mapper.readTree(body);
      if (node == null || !node.isObject()) {
        throw ToolException.upstream("fixture API answered malformed JSON");
      }
      return node;
    } catch (JacksonException e) {
      throw ToolException.upstream("fixture API answered malformed JSON");
    }
  }

  private static int redisInt(String s) throws ToolException {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw ToolException.backend("malformed redis value " + Json.quote(s));
    }
  }

  private static ToolException redisFailure(JedisException e) {
    return ToolException.backend("redis: " + e.getMessage());
  }

  /**
   * Reads an integer argument and re-checks its range here, even though the SDK validates the
   * schema, so that no caller can make the server run fibonacci(40).
   */
  static int integer(Map<String, Object> a, String name, int min, int max, Integer dflt) throws ToolException {
    Object v = a.get(name);
    if (v == null && dflt != null && !a.containsKey(name)) {
      return dflt;
    }
    Long n = null;
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      n = ((Number) v).longValue();
    } else if (v instanceof Double || v instanceof Float || v instanceof BigDecimal) {
      double d = ((Number) v).doubleValue();
      if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        n = (long) d; // JSON Schema counts 5.0 as an integer
      }
    }
    if (n == null || n < min || n > max) {
      throw ToolException.invalid(name + " must be an integer in " + min + ".." + max);
    }
    return (int) (long) n;
  }
}
