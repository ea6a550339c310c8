package dev.perflab.server;

import io.micronaut.context.annotation.Factory;
import io.micronaut.scheduling.TaskExecutors;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The ten tools of CONTRACT.md section 4 as tool specification beans, which Micronaut MCP's
 * reactive HTTP server collects (its "tools factory" idiom): each carries the contract's input
 * schema as it is and hands the raw arguments to servers/java's Tools (10.0 is 10, 10.5 refused).
 * CPU work runs on the Netty event loop that serves the request, sleep is a Reactor timer, and
 * the I/O tools, whose clients block, run on Micronaut's blocking executor (virtual threads).
 */
@Factory
class McpTools {
  private static final Set<String> BLOCKING_IO =
      Set.of("fetch_upstream", "search_products", "get_user_cart", "checkout", "get_user");

  private final Tools tools;
  private final McpJsonMapper jsonMapper;
  private final Scheduler blocking;

  McpTools(Tools tools, McpJsonMapper jsonMapper, @Named(TaskExecutors.BLOCKING) ExecutorService blocking) {
    this.tools = tools;
    this.jsonMapper = jsonMapper;
    this.blocking = Schedulers.fromExecutorService(blocking);
  }

  // One bean per tool: the server factory injects every AsyncToolSpecification bean.
  @Singleton
  @Named("echo")
  AsyncToolSpecification echo() {
    return spec("echo");
  }

  @Singleton
  @Named("fibonacci")
  AsyncToolSpecification fibonacci() {
    return spec("fibonacci");
  }

  @Singleton
  @Named("validate_document")
  AsyncToolSpecification validateDocument() {
    return spec("validate_document");
  }

  @Singleton
  @Named("transform_data")
  AsyncToolSpecification transformData() {
    return spec("transform_data");
  }

  @Singleton
  @Named("sleep")
  AsyncToolSpecification sleep() {
    return spec("sleep");
  }

  @Singleton
  @Named("fetch_upstream")
  AsyncToolSpecification fetchUpstream() {
    return spec("fetch_upstream");
  }

  @Singleton
  @Named("search_products")
  AsyncToolSpecification searchProducts() {
    return spec("search_products");
  }

  @Singleton
  @Named("get_user_cart")
  AsyncToolSpecification getUserCart() {
    return spec("get_user_cart");
  }

  @Singleton
  @Named("checkout")
  AsyncToolSpecification checkout() {
    return spec("checkout");
  }

  @Singleton
  @Named("get_user")
  AsyncToolSpecification getUser() {
    return spec("get_user");
  }

  private AsyncToolSpecification spec(String name) {
    Tools.Def def = Tools.DEFS.stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
    Tool tool = Tool.builder()
        .name(def.name())
        .description(def.description())
        .inputSchema(jsonMapper, def.inputSchema())
        .build();
    return new AsyncToolSpecification(tool, (context, request) -> call(name, request));
  }

  private Mono<CallToolResult> call(String name, CallToolRequest request) {
    if (name.equals("sleep")) {
      return sleep(request);
    }
    Mono<CallToolResult> run = Mono.fromCallable(() -> run(name, request));
    return BLOCKING_IO.contains(name) ? run.subscribeOn(blocking) : run;
  }

  private CallToolResult run(String name, CallToolRequest request) {
    try {
      return text(tools.call(name, request.arguments()), false);
    } catch (ToolException e) {
      return text(e.getMessage(), true);
    }
  }

  private Mono<CallToolResult> sleep(CallToolRequest request) {
    int ms;
    try {
      ms = Tools.integer(request.arguments() == null ? Map.of() : request.arguments(), "ms", 0, 10000, null);
    } catch (ToolException e) {
      return Mono.just(text(e.getMessage(), true));
    }
    return Mono.delay(Duration.ofMillis(ms)).map(t -> text("{\"slept_ms\":" + ms + "}", false));
  }

  private static CallToolResult text(String text, boolean isError) {
    return CallToolResult.builder().addTextContent(text).isError(isError).build();
  }
}
