package dev.perflab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The transport end to end over HTTP, in each mode the server accepts. */
class ServerTest {
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final JsonMapper MAPPER = JsonMapper.shared();
  static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";

  record Reply(int status, String contentType, String sessionId, String body) {
    JsonNode message() {
      if (body.startsWith("{")) {
        return MAPPER.readTree(body);
      }
      String data = null;
      for (String line : body.split("\n")) {
        if (line.startsWith("data: ")) {
          data = line.substring(6);
        }
      }
      assertNotNull(data, "no SSE data line in " + body);
      return MAPPER.readTree(data);
    }
  }

  static Reply send(int port, String method, String sessionId, String body, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
        .timeout(Duration.ofSeconds(10))
        .header("Accept", accept)
        .header("MCP-Protocol-Version", "2025-06-18");
    if (sessionId != null) {
      b.header("Mcp-Session-Id", sessionId);
    }
    if (body != null) {
      b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""),
        r.headers().firstValue("Mcp-Session-Id").orElse(null), r.body());
  }

  static Reply post(int port, String sessionId, String body) throws Exception {
    return send(port, "POST", sessionId, body, "application/json, text/event-stream");
  }

  static String call(String tool, String args) {
    return "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":" + args + "}}";
  }

  static String get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void statefulSessionLivesFromInitializeToDelete() throws Exception {
    App app = App.start(new Config(0, false, false), Map.of());
    int port = app.port();
    try {
      assertEquals(App.ACCEPT_QUEUE, app.acceptQueueSize());
      Reply init = post(port, null, INIT);
      assertEquals(200, init.status());
      assertTrue(init.contentType().startsWith("text/event-stream"), init.contentType());
      assertNotNull(init.sessionId());
      assertEquals("perflab-java", init.message().at("/result/serverInfo/name").stringValue());
      String sid = init.sessionId();

      assertEquals(202, post(port, sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").status());

      Reply fib = post(port, sid, call("fibonacci", "{\"n\":30}"));
      assertTrue(fib.contentType().startsWith("text/event-stream"));
      JsonNode result = fib.message().get("result");
      assertEquals("{\"n\":30,\"value\":832040}", result.at("/content/0/text").stringValue());
      assertFalse(result.has("structuredContent"));

      // A whole-number float is a JSON Schema integer; a fraction is not (CONTRACT.md section 3).
      for (String n : List.of("10.0", "1e1")) {
        JsonNode whole = post(port, sid, call("fibonacci", "{\"n\":" + n + "}")).message();
        assertEquals("{\"n\":10,\"value\":55}", whole.at("/result/content/0/text").stringValue(), n);
      }
      JsonNode fraction = post(port, sid, call("fibonacci", "{\"n\":10.5}")).message();
      assertTrue(fraction.at("/result/isError").booleanValue() || fraction.at("/error/code").intValue() == -32602);

      JsonNode tooBig = post(port, sid, call("fibonacci", "{\"n\":40}")).message();
      assertTrue(tooBig.at("/result/isError").booleanValue() || tooBig.at("/error/code").intValue() == -32602);
      JsonNode unknown = post(port, sid, call("no_such_tool", "{}")).message();
      assertEquals(-32602, unknown.at("/error/code").intValue());

      // The GET stream's headers must arrive before any event is sent.
      HttpRequest getReq = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
          .header("Accept", "text/event-stream").header("Mcp-Session-Id", sid).build();
      HttpResponse<InputStream> stream = HTTP.sendAsync(getReq, HttpResponse.BodyHandlers.ofInputStream())
          .get(3, TimeUnit.SECONDS);
      assertEquals(200, stream.statusCode());
      assertTrue(stream.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
      assertTrue(get(port, "/debug/runtime").contains("\"sessions\":1"));

      assertEquals(200, send(port, "DELETE", sid, null, "application/json").status());
      // DELETE also ends the session's GET stream: reading it reaches the end.
      try (InputStream in = stream.body()) {
        assertEquals(-1, in.read());
      }
      assertEquals(404, post(port, sid, call("fibonacci", "{\"n\":1}")).status());
      assertTrue(get(port, "/debug/runtime").contains("\"sessions\":0"));
    } finally {
      app.stop();
    }
  }

  @Test
  void errorsAreCleanJsonWithoutStackTraces() throws Exception {
    App app = App.start(new Config(0, false, false), Map.of());
    try {
      Reply badAccept = send(app.port(), "POST", null, INIT, "text/plain");
      assertEquals(400, badAccept.status());
      assertFalse(badAccept.body().contains("stackTrace"), badAccept.body());
      assertTrue(badAccept.message().at("/error/code").isInt());
      Reply garbage = post(app.port(), null, "{not json");
      assertEquals(400, garbage.status());
      assertFalse(garbage.body().contains("stackTrace"), garbage.body());
      assertEquals("{\"status\":\"ok\"}", get(app.port(), "/health"));
      for (String bad : List.of("0x1", "0", "01", "+1", "%2B1", "%201", "1e3", "-1", "1234567890")) {
        assertEquals("{\"error\":\"invalid id\"}", get(app.port(), "/rest/users/" + bad), bad);
      }
      assertEquals("{\"error\":\"database unavailable\"}", get(app.port(), "/rest/users/7"));
      assertTrue(get(app.port(), "/rest/time").matches("\\{\"now_ms\":[0-9]{13}}"));
    } finally {
      app.stop();
    }
  }

  @Test
  void statelessAnswersEachPostAloneInEitherFormat() throws Exception {
    for (boolean json : new boolean[] {false, true}) {
      App app = App.start(new Config(0, true, json), Map.of());
      try {
        Reply r = post(app.port(), null, call("transform_data", "{\"size\":1}"));
        assertEquals(200, r.status());
        assertTrue(r.contentType().startsWith(json ? "application/json" : "text/event-stream"), r.contentType());
        assertTrue(r.message().at("/result/content/0/text").stringValue().startsWith("{\"size\":1,\"groups\":"));
        assertEquals(405, send(app.port(), "GET", null, null, "text/event-stream").status());
        assertEquals(405, send(app.port(), "DELETE", "x", null, "application/json").status());
        assertTrue(get(app.port(), "/debug/runtime").contains("\"sessions\":null"));
      } finally {
        app.stop();
      }
    }
  }

  @Test
  void statelessSseFramesTheSameJsonAsJsonMode() throws Exception {
    // 100 bytes fits Jetty's output buffer (one write, Content-Length); 1 MiB streams in chunks.
    String[] calls = {call("echo", "{\"message\":\"a\\nb\",\"pad_to_bytes\":100}"),
        call("echo", "{\"message\":\"hi\",\"pad_to_bytes\":1048576}")};
    String[] json = new String[calls.length];
    for (boolean jsonResponse : new boolean[] {true, false}) {
      App app = App.start(new Config(0, true, jsonResponse), Map.of());
      try {
        for (int i = 0; i < calls.length; i++) {
          Reply r = post(app.port(), null, calls[i]);
          assertEquals(200, r.status());
          if (jsonResponse) {
            json[i] = r.body();
            assertFalse(json[i].contains("\n"), "JSON-RPC text with a raw newline");
          } else {
            assertEquals("text/event-stream;charset=utf-8", r.contentType());
            assertEquals("event: message\ndata: " + json[i] + "\n\n", r.body());
          }
        }
      } finally {
        app.stop();
      }
    }
  }

  @Test
  void jsonResponsesAreRefusedInStatefulMode() {
    assertThrows(IllegalArgumentException.class, () -> Config.fromEnv(Map.of("MCP_JSON_RESPONSE", "1")));
    assertThrows(IllegalArgumentException.class, () -> Config.fromEnv(Map.of("PORT", "0")));
    assertEquals(new Config(8080, true, true), Config.fromEnv(Map.of("MCP_STATELESS", "1", "MCP_JSON_RESPONSE", "1")));
  }
}
