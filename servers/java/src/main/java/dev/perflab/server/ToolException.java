package dev.perflab.server;

/** A tool failure whose message is the isError TEXT, starting with a CONTRACT.md error code. */
final class ToolException extends Exception {
  ToolException(String text) {
    super(text, null, false, false); // no stack trace: these are expected, and can be frequent
  }

  static ToolException invalid(String detail) {
    return new ToolException("invalid_argument: " + detail);
  }

  static ToolException backend(String detail) {
    return new ToolException("backend_unavailable: " + detail);
  }

  static ToolException upstream(String detail) {
    return new ToolException("upstream_error: " + detail);
  }
}
