package dev.perflab.server;

import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.stereotype.Component;

/**
 * The ten tools of CONTRACT.md section 4 as Spring AI @McpTool methods. Each takes the raw
 * CallToolRequest and returns a CallToolResult: Spring AI passes both through unchanged, so the
 * arguments reach the contract's own checks (10.0 is 10, 10.5 is refused) and the TEXT goes out
 * byte for byte. The listed input schemas are the contract's ({@link ContractSchemas}).
 */
@Component
public class McpTools {
  private final Tools tools;

  McpTools(Tools tools) {
    this.tools = tools;
  }

  @McpTool(name = "echo", description = "Returns the message, padded to pad_to_bytes bytes.")
  public CallToolResult echo(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "fibonacci", description = "Computes the n-th Fibonacci number by naive recursion.")
  public CallToolResult fibonacci(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "validate_document", description = "Validates a document against the perflab order schema.")
  public CallToolResult validateDocument(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "transform_data", description = "Generates, sorts, groups and aggregates size records.")
  public CallToolResult transformData(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "sleep", description = "Waits ms milliseconds, like a database call.")
  public CallToolResult sleep(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "fetch_upstream", description = "Fetches the fixture API's /delay endpoint.")
  public CallToolResult fetchUpstream(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "search_products", description = "Searches products and returns the most popular ones.")
  public CallToolResult searchProducts(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "get_user_cart", description = "Returns a user's cart, recommended product and recent orders.")
  public CallToolResult getUserCart(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "checkout", description = "Prices items and records an order for a user.")
  public CallToolResult checkout(CallToolRequest request) {
    return run(request);
  }

  @McpTool(name = "get_user", description = "Looks up a user by primary key in Postgres.")
  public CallToolResult getUser(CallToolRequest request) {
    return run(request);
  }

  /** Runs on the request thread (a Tomcat worker, or a virtual thread with the variant). */
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
