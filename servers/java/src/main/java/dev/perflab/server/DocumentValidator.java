package dev.perflab.server;

import com.networknt.schema.Error;
import com.networknt.schema.ExecutionContext;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.format.Format;
import com.networknt.schema.path.NodePath;
import com.networknt.schema.regex.RegularExpressionFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * validate_document (CONTRACT.md 4.3): networknt json-schema-validator, Draft 2020-12, all
 * errors collected, formats asserted with the contract's regexes. The schema is compiled once.
 */
final class DocumentValidator {
  private final Schema schema;

  DocumentValidator() {
    String schemaJson;
    try (InputStream in = DocumentValidator.class.getResourceAsStream("/document.schema.json")) {
      if (in == null) {
        throw new IllegalStateException("document.schema.json is missing from the classpath");
      }
      schemaJson = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read document.schema.json", e);
    }
    // The contract's formats replace the library's own so every runtime asserts the same rules.
    Dialect dialect = Dialect.builder(Dialects.getDraft202012())
        .format(regexFormat("uuid", "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"))
        .format(regexFormat("date", "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"))
        .format(regexFormat("email", "^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$"))
        .build();
    SchemaRegistryConfig config = SchemaRegistryConfig.builder()
        .formatAssertionsEnabled(true)
        .regularExpressionFactory(ECMA_END_OF_INPUT)
        .build();
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(dialect, b -> b.schemaRegistryConfig(config));
    schema = registry.getSchema(schemaJson, InputFormat.JSON);
  }

  /** Returns the canonical TEXT: validity and the sorted distinct JSON Pointers of failures. */
  String validate(JsonNode document) {
    List<Error> errors = schema.validate(document);
    Set<String> paths = new TreeSet<>(); // String order is byte order for these ASCII paths
    for (Error e : errors) {
      paths.add(pointer(e.getInstanceLocation()));
    }
    Json out = new Json().beginObject()
        .field("valid", paths.isEmpty())
        .field("error_count", paths.size())
        .name("error_paths").beginArray();
    for (String p : paths) {
      out.value(p);
    }
    return out.endArray().endObject().toString();
  }

  static String pointer(NodePath path) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < path.getNameCount(); i++) {
      Object element = path.getElement(i);
      sb.append('/');
      if (element instanceof Number) {
        sb.append(element);
      } else {
        sb.append(element.toString().replace("~", "~0").replace("/", "~1"));
      }
    }
    return sb.toString();
  }

  private static Format regexFormat(String name, String regex) {
    Pattern pattern = Pattern.compile(regex);
    return new Format() {
      @Override
      public String getName() {
        return name;
      }

      @Override
      public boolean matches(ExecutionContext ctx, String value) {
        return pattern.matcher(value).matches(); // whole string; non-strings never reach here
      }
    };
  }

  // JSON Schema patterns are ECMA-262, where a final "$" matches only at the end of the input;
  // java.util.regex would also match before a trailing newline, so it becomes "\z".
  private static final RegularExpressionFactory ECMA_END_OF_INPUT = regex -> {
    String javaRegex = regex.endsWith("$") && !regex.endsWith("\\$")
        ? regex.substring(0, regex.length() - 1) + "\\z"
        : regex;
    Pattern pattern = Pattern.compile(javaRegex);
    return value -> pattern.matcher(value).find();
  };
}
