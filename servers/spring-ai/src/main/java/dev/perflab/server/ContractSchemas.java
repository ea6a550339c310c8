package dev.perflab.server;

import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.stereotype.Component;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Lists the contract's input schemas (section 4) for the @McpTool methods. Spring AI derives a
 * schema from a method's Java parameters and has no place for minimum, maximum, pattern or
 * default on them, so the tool specifications it builds get the contract's schema by tool name.
 */
@Component
class ContractSchemas implements BeanPostProcessor {
  private static final Map<String, Map<String, Object>> SCHEMAS = Tools.DEFS.stream()
      .collect(Collectors.toUnmodifiableMap(Tools.Def::name, d -> parse(d.inputSchema())));

  @Override
  public Object postProcessAfterInitialization(Object bean, String name) {
    if (!(bean instanceof List<?> list) || list.isEmpty()) {
      return bean;
    }
    if (list.get(0) instanceof McpServerFeatures.SyncToolSpecification) {
      return list.stream()
          .map(s -> (McpServerFeatures.SyncToolSpecification) s)
          .map(s -> new McpServerFeatures.SyncToolSpecification(withSchema(s.tool()), s.callHandler()))
          .toList();
    }
    if (list.get(0) instanceof McpStatelessServerFeatures.SyncToolSpecification) {
      return list.stream()
          .map(s -> (McpStatelessServerFeatures.SyncToolSpecification) s)
          .map(s -> new McpStatelessServerFeatures.SyncToolSpecification(withSchema(s.tool()), s.callHandler()))
          .toList();
    }
    if (list.get(0) instanceof McpServerFeatures.AsyncToolSpecification) {
      return list.stream()
          .map(s -> (McpServerFeatures.AsyncToolSpecification) s)
          .map(s -> new McpServerFeatures.AsyncToolSpecification(withSchema(s.tool()), s.callHandler()))
          .toList();
    }
    if (list.get(0) instanceof McpStatelessServerFeatures.AsyncToolSpecification) {
      return list.stream()
          .map(s -> (McpStatelessServerFeatures.AsyncToolSpecification) s)
          .map(s -> new McpStatelessServerFeatures.AsyncToolSpecification(withSchema(s.tool()), s.callHandler()))
          .toList();
    }
    return bean;
  }

  private static Tool withSchema(Tool tool) {
    Map<String, Object> schema = SCHEMAS.get(tool.name());
    if (schema == null) {
      return tool;
    }
    return Tool.builder().name(tool.name()).title(tool.title()).description(tool.description())
        .inputSchema(schema).annotations(tool.annotations()).meta(tool.meta()).build();
  }

  private static Map<String, Object> parse(String json) {
    return JsonMapper.shared().readValue(json, new TypeReference<Map<String, Object>>() {});
  }
}
