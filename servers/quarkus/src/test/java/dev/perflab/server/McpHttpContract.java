package dev.perflab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The MCP endpoint over HTTP in the default stateful mode, whatever framework serves it:
 * servers/quarkus and servers/micronaut each start their server and give its port.
 */
abstract class McpHttpContract {
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final JsonMapper MAPPER = JsonMapper.shared();
  static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";

  String session;

  /** The port the server under test listens on. */
  abstract int port();

  /** serverInfo.name: perflab-<folder name>. */
  abstract String serverName();

  record Reply(int status, String contentType, String sessionId, String body) {
    /** The JSON-RPC message of a JSON body or of an SSE body's data line. */
    JsonNode message() {
      String data = body;
      for (String line : body.split("\n")) {
        if (line.startsWith("data:")) {
          data = line.substring(5).strip();
        }
      }
      return MAPPER.readTree(data);
    }
  }

  Reply send(String method, String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/mcp"))
        .timeout(Duration.ofSeconds(30))
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2025-06-18");
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    headers.forEach(b::header);
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""),
        r.headers().firstValue("Mcp-Session-Id").orElse(null), r.body());
  }

  @BeforeEach
  void initialize() throws Exception {
    Reply init = send("POST", INIT, Map.of());
    assertEquals(200, init.status(), init.body());
    assertTrue(init.contentType().startsWith("text/event-stream"), "initialize is framed as SSE: " + init.contentType());
    assertEquals(serverName(), init.message().at("/result/serverInfo/name").stringValue());
    assertNotNull(init.sessionId());
    session = init.sessionId();
    assertEquals(202, send("POST", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", Map.of()).status());
  }

  @Test
  void listsTheContractsToolsAndSchemas() throws Exception {
    JsonNode tools = send("POST", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", Map.of()).message().at("/result/tools");
    assertEquals(Tools.DEFS.size(), tools.size());
    for (Tools.Def def : Tools.DEFS) {
      JsonNode listed = null;
      for (JsonNode t : tools) {
        listed = t.get("name").stringValue().equals(def.name()) ? t : listed;
      }
      assertNotNull(listed, def.name());
      assertEquals(def.description(), listed.get("description").stringValue());
      assertEquals(MAPPER.readTree(def.inputSchema()), listed.get("inputSchema"), def.name());
    }
  }

  /** Every tools vector of servers/contract/vectors.json through the framework, byte for byte. */
  @Test
  void answersEveryGoldenVectorByteForByte() throws Exception {
    JsonNode vectors = MAPPER.readTree(Path.of("..", "contract", "vectors.json").toFile());
    for (JsonNode v : vectors.get("tools")) {
      String call = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
          + MAPPER.writeValueAsString(v.get("tool")) + ",\"arguments\":" + MAPPER.writeValueAsString(v.get("arguments")) + "}}";
      JsonNode result = send("POST", call, Map.of()).message().get("result");
      String what = v.get("name").stringValue();
      assertEquals(1, result.get("content").size(), what);
      String text = result.at("/content/0/text").stringValue();
      if (v.has("text")) {
        assertEquals(v.get("text").stringValue(), text, what);
      } else {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertEquals(v.get("text_bytes").intValue(), bytes.length, what);
        assertEquals(v.get("text_sha256").stringValue(),
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), what);
      }
    }
  }

  @Test
  void refusesFractionsForeignHostsAndLargeBodies() throws Exception {
    JsonNode fraction = send("POST", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"fibonacci\",\"arguments\":{\"n\":10.5}}}", Map.of()).message();
    assertTrue(fraction.at("/result/isError").booleanValue(), fraction.toString());
    JsonNode whole = send("POST", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"fibonacci\",\"arguments\":{\"n\":10.0}}}", Map.of()).message();
    assertEquals("{\"n\":10,\"value\":55}", whole.at("/result/content/0/text").stringValue());
    assertEquals(403, send("POST", INIT, Map.of("Origin", "http://rebound.example")).status());
    String big = "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\""
        + "a".repeat(8 << 20) + "\"}}}";
    assertEquals(413, send("POST", big, Map.of()).status());
  }

  @Test
  void deleteEndsTheSessionAndRuntimeCountsIt() throws Exception {
    String runtime = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/debug/runtime")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertTrue(MAPPER.readTree(runtime).at("/mcp/sessions").intValue() >= 1, runtime);
    int deleted = send("DELETE", null, Map.of()).status();
    assertTrue(deleted == 200 || deleted == 204, "DELETE: " + deleted);
    assertEquals(404, send("POST", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}", Map.of()).status());
  }
}
