package dev.perflab.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Every tools vector of servers/contract/vectors.json, byte for byte (CONTRACT.md section 9). */
class VectorsTest {
  static final Path CONTRACT = Path.of("..", "contract");
  static final JsonMapper MAPPER = JsonMapper.shared();

  @TestFactory
  List<DynamicTest> toolResultsMatchTheGoldenVectors() throws Exception {
    JsonNode vectors = MAPPER.readTree(CONTRACT.resolve("vectors.json").toFile());
    Tools tools = new Tools(new Backends(Map.of()), new DocumentValidator());
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode v : vectors.get("tools")) {
      tests.add(dynamicTest(v.get("name").stringValue(), () -> {
        // Arguments arrive as the SDK hands them over: a Map parsed by Jackson.
        @SuppressWarnings("unchecked")
        Map<String, Object> args = MAPPER.treeToValue(v.get("arguments"), Map.class);
        String text = tools.call(v.get("tool").stringValue(), args);
        if (v.has("text")) {
          assertEquals(v.get("text").stringValue(), text);
        } else {
          byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
          assertEquals(v.get("text_bytes").intValue(), bytes.length);
          String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
          assertEquals(v.get("text_sha256").stringValue(), sha);
        }
      }));
    }
    assertTrue(tests.size() >= 31, "vectors.json lost its tool vectors");
    return tests;
  }

  @Test
  void bundledSchemaIsTheContractSchema() throws Exception {
    byte[] contract = Files.readAllBytes(CONTRACT.resolve("document.schema.json"));
    byte[] bundled = Files.readAllBytes(Path.of("src", "main", "resources", "document.schema.json"));
    assertArrayEquals(contract, bundled, "copy ../contract/document.schema.json to src/main/resources");
  }

  @Test
  void manifestListsExactlyTheImplementedTools() throws Exception {
    JsonNode manifest = MAPPER.readTree(Path.of("perflab.json").toFile());
    List<String> listed = StreamSupport.stream(manifest.get("tools").spliterator(), false).map(JsonNode::stringValue).toList();
    assertEquals(Tools.DEFS.stream().map(Tools.Def::name).toList(), listed);
    assertEquals("java", manifest.get("name").stringValue());
  }
}
