package dev.perflab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComputeTest {
  @Test
  void xorshiftFromSeed42GivesTheContractsFirstOutputs() {
    Compute.XorShift32 rng = new Compute.XorShift32(42);
    long[] expected = {11355432L, 2836018348L, 476557059L, 3648046016L, 3759983556L};
    for (long e : expected) {
      assertEquals(e, rng.next());
    }
  }

  @Test
  void echoPadsToExactlyTheRequestedUtf8Bytes() {
    String text = Compute.padMessage("h\u00e9llo", 8);
    assertEquals("h\u00e9lloAB", text);
    assertEquals(8, text.getBytes(StandardCharsets.UTF_8).length);
    assertEquals("\uD83D\uDE00", Compute.padMessage("\uD83D\uDE00", 4)); // 4-byte emoji is not padded
    assertEquals("\uD83D\uDE00A", Compute.padMessage("\uD83D\uDE00", 5));
  }

  @Test
  void canonicalJsonEscapesOnlyWhatTheContractAllows() {
    String q = Json.quote("a\"b\\c/<>&\u00e9\n\t\u0001\u001f\b\f");
    assertEquals("\"a\\\"b\\\\c/<>&\u00e9\\n\\t\\u0001\\u001f\\b\\f\"", q);
  }

  @Test
  void rangesAreRecheckedOutsideTheSdksSchemaValidation() {
    Tools tools = new Tools(new Backends(Map.of()), new DocumentValidator());
    ToolException e = assertThrows(ToolException.class, () -> tools.call("fibonacci", Map.of("n", 40)));
    assertTrue(e.getMessage().startsWith("invalid_argument:"), e.getMessage());
    assertThrows(ToolException.class, () -> tools.call("transform_data", Map.of("size", 10_000_000)));
    assertThrows(ToolException.class, () -> tools.call("echo", Map.of("message", "x", "pad_to_bytes", -1)));
    assertThrows(ToolException.class, () -> tools.call("fibonacci", Map.of("n", "7")));
    // 600,000 two-byte characters: short in chars, 1.2 MB in UTF-8, so over the 1 MiB limit.
    assertThrows(ToolException.class, () -> tools.call("echo", Map.of("message", "\u00e9".repeat(600_000))));
    assertEquals(1 << 20, uncheck(() -> tools.call("echo", Map.of("message", "\u00e9".repeat(1 << 19)))).length() * 2);
    assertThrows(ToolException.class, () -> tools.call("fibonacci", Map.of("n", 7.5)));
    assertEquals("{\"n\":7,\"value\":13}", uncheck(() -> tools.call("fibonacci", Map.of("n", 7.0))));
  }

  @Test
  void ioToolsFailWithBackendUnavailableWhenNothingIsConfigured() throws Exception {
    Tools tools = new Tools(new Backends(Map.of()), new DocumentValidator());
    Map<String, Map<String, Object>> calls = new HashMap<>();
    calls.put("fetch_upstream", Map.of("delay_ms", 1));
    calls.put("search_products", Map.of("query", "lamp"));
    calls.put("get_user_cart", Map.of("user_id", 1));
    calls.put("checkout", Map.of("user_id", 1, "items", java.util.List.of(Map.of("product_id", 1, "quantity", 1))));
    calls.put("get_user", Map.of("id", 1));
    for (var call : calls.entrySet()) {
      ToolException e = assertThrows(ToolException.class, () -> tools.call(call.getKey(), call.getValue()));
      assertTrue(e.getMessage().startsWith("backend_unavailable:"), call.getKey() + ": " + e.getMessage());
    }
  }

  interface Call {
    String run() throws Exception;
  }

  static String uncheck(Call c) {
    try {
      return c.run();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
