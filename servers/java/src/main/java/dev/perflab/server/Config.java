package dev.perflab.server;

import java.util.Map;

/** The process configuration of CONTRACT.md section 1; a value it does not allow is an error. */
record Config(int port, boolean stateless, boolean jsonResponse) {

  static Config fromEnv(Map<String, String> env) {
    Config cfg = anyTransport(env);
    cfg.check();
    return cfg;
  }

  /** The same values without the Java SDK's check, for transports that answer JSON with sessions too. */
  static Config anyTransport(Map<String, String> env) {
    String rawPort = env.getOrDefault("PORT", "");
    int port;
    try {
      port = rawPort.isEmpty() ? 8080 : Integer.parseInt(rawPort);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("PORT must be 1..65535, got \"" + rawPort + "\"");
    }
    return new Config(port, flag(env, "MCP_STATELESS"), flag(env, "MCP_JSON_RESPONSE"));
  }

  /**
   * The SDK's stateful servlet transport answers requests only as SSE; JSON answers exist only in
   * its stateless transport, so that combination is refused rather than faked.
   */
  void check() {
    if (jsonResponse && !stateless) {
      throw new IllegalArgumentException(
          "MCP_JSON_RESPONSE=1 needs MCP_STATELESS=1: the Java SDK's stateful transport answers only with SSE");
    }
  }

  private static boolean flag(Map<String, String> env, String name) {
    String v = env.getOrDefault(name, "");
    return switch (v) {
      case "", "0" -> false;
      case "1" -> true;
      default -> throw new IllegalArgumentException(name + " must be 0 or 1, got \"" + v + "\"");
    };
  }
}
