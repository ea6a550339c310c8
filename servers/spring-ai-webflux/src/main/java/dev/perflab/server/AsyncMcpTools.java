package dev.perflab.server;

import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The ten tools of CONTRACT.md section 4 as Spring AI @McpTool methods of the ASYNC server, the
 * reactive idiom: CPU work runs on the Netty event loop that serves the request, sleep is a
 * Reactor timer, and the I/O tools, whose clients (Jedis, JDBC, servers/java's Backends) block,
 * run on Reactor's boundedElastic scheduler, as Reactor's docs wrap blocking calls. Raw request and
 * result as in servers/spring-ai's McpTools (its README says why).
 */
@Component
public class AsyncMcpTools {
  private final Tools tools;

  AsyncMcpTools(Tools tools) {
    this.tools = tools;
  }

  @McpTool(name = "echo", description = "Returns the message, padded to pad_to_bytes bytes.")
  public Mono<CallToolResult> echo(CallToolRequest request) {
    return onEventLoop(request);
  }

  @McpTool(name = "fibonacci", description = "Computes the n-th Fibonacci number by naive recursion.")
  public Mono<CallToolResult> fibonacci(CallToolRequest request) {
    return onEventLoop(request);
  }

  @McpTool(name = "validate_document", description = "Validates a document against the perflab order schema.")
  public Mono<CallToolResult> validateDocument(CallToolRequest request) {
    return onEventLoop(request);
  }

  @McpTool(name = "transform_data", description = "Generates, sorts, groups and aggregates size records.")
  public Mono<CallToolResult> transformData(CallToolRequest request) {
    return onEventLoop(request);
  }

  @McpTool(name = "sleep", description = "Waits ms milliseconds, like a database call.")
  public Mono<CallToolResult> sleep(CallToolRequest request) {
    int ms;
    try {
      ms = Tools.integer(request.arguments() == null ? Map.of() : request.arguments(), "ms", 0, 10000, null);
    } catch (ToolException e) {
      return Mono.just(text(e.getMessage(), true));
    }
    return Mono.delay(Duration.ofMillis(ms)).map(t -> text("{\"slept_ms\":" + ms + "}", false));
  }

  @McpTool(name = "fetch_upstream", description = "Fetches the fixture API's /delay endpoint.")
  public Mono<CallToolResult> fetchUpstream(CallToolRequest request) {
    return offEventLoop(request);
  }

  @McpTool(name = "search_products", description = "Searches products and returns the most popular ones.")
  public Mono<CallToolResult> searchProducts(CallToolRequest request) {
    return offEventLoop(request);
  }

  @McpTool(name = "get_user_cart", description = "Returns a user's cart, recommended product and recent orders.")
  public Mono<CallToolResult> getUserCart(CallToolRequest request) {
    return offEventLoop(request);
  }

  @McpTool(name = "checkout", description = "Prices items and records an order for a user.")
  public Mono<CallToolResult> checkout(CallToolRequest request) {
    return offEventLoop(request);
  }

  @McpTool(name = "get_user", description = "Looks up a user by primary key in Postgres.")
  public Mono<CallToolResult> getUser(CallToolRequest request) {
    return offEventLoop(request);
  }

  private Mono<CallToolResult> onEventLoop(CallToolRequest request) {
    return Mono.fromCallable(() -> run(request));
  }

  private Mono<CallToolResult> offEventLoop(CallToolRequest request) {
    return Mono.fromCallable(() -> run(request)).subscribeOn(Schedulers.boundedElastic());
  }

  private CallToolResult run(CallToolRequest request) {
    try {
      return text(tools.call(request.name(), request.arguments()), false);
    } catch (ToolException e) {
      return text(e.getMessage(), true);
    }
  }

  private static CallToolResult text(String text, boolean isError) {
    return CallToolResult.builder().addTextContent(text).isError(isError).build();
  }
}
