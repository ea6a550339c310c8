package dev.perflab.server;

import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkiverse.mcp.server.ToolManager.ToolArguments;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ten tools of CONTRACT.md section 4, registered through the Quarkiverse ToolManager's
 * programmatic API: it takes the contract's input schema as it is (an annotated method's schema
 * is derived from its Java parameters, which cannot say minimum, maximum, pattern or default) and
 * hands the raw arguments to servers/java's Tools, which treats 10.0 as 10 and refuses 10.5.
 */
@Startup
@Singleton
class McpTools {
  /** Tools that wait on Redis, Postgres or the fixture API: on virtual threads, as Quarkus runs blocking I/O. */
  private static final Set<String> BLOCKING_IO =
      Set.of("fetch_upstream", "search_products", "get_user_cart", "checkout", "get_user");

  @Inject
  ToolManager toolManager;

  @Inject
  Tools tools;

  @PostConstruct
  void register() {
    for (Tools.Def def : Tools.DEFS) {
      ToolManager.ToolDefinition tool = toolManager.newTool(def.name())
          .setDescription(def.description())
          .setInputSchema(new JsonObject(def.inputSchema()));
      if (def.name().equals("sleep")) {
        tool.setAsyncHandler(this::sleep); // a Vert.x timer: no thread waits
      } else {
        // CPU tools on Quarkus' worker pool, where a blocking tool method runs by default.
        tool.setHandler(args -> run(def.name(), args), BLOCKING_IO.contains(def.name()));
      }
      tool.register();
    }
  }

  private ToolResponse run(String name, ToolArguments args) {
    try {
      return ToolResponse.success(new TextContent(tools.call(name, plain(args.args()))));
    } catch (ToolException e) {
      return ToolResponse.error(e.getMessage());
    }
  }

  private Uni<ToolResponse> sleep(ToolArguments args) {
    int ms;
    try {
      ms = Tools.integer(plain(args.args()), "ms", 0, 10000, null);
    } catch (ToolException e) {
      return Uni.createFrom().item(ToolResponse.error(e.getMessage()));
    }
    ToolResponse slept = ToolResponse.success(new TextContent("{\"slept_ms\":" + ms + "}"));
    return Uni.createFrom().item(slept).onItem().delayIt().by(Duration.ofMillis(ms));
  }

  /** Vert.x may hand nested objects and arrays over as JsonObject/JsonArray; Tools reads Maps and Lists. */
  static Map<String, Object> plain(Map<String, Object> args) {
    if (args == null) {
      return Map.of();
    }
    Map<String, Object> out = new LinkedHashMap<>(args.size());
    args.forEach((k, v) -> out.put(k, plainValue(v)));
    return out;
  }

  private static Object plainValue(Object v) {
    if (v instanceof JsonObject o) {
      return plain(o.getMap());
    }
    if (v instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) m;
      return plain(map);
    }
    if (v instanceof JsonArray a) {
      return plainList(a.getList());
    }
    if (v instanceof List<?> l) {
      return plainList(l);
    }
    return v;
  }

  private static List<Object> plainList(List<?> list) {
    List<Object> out = new ArrayList<>(list.size());
    for (Object v : list) {
      out.add(plainValue(v));
    }
    return out;
  }
}
