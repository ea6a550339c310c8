package dev.perflab.server;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Frames a JSON answer (status 200) as one SSE {@code message} event while the transport writes
 * it, without a copy: the prefix goes out before its first byte, the blank line after its last.
 * Spring AI answers initialize and every stateless request with JSON only. SSE answers, errors and
 * MCP_JSON_RESPONSE=1 pass through.
 */
final class SseFraming extends HttpServletResponseWrapper {
  private static final byte[] PREFIX = "event: message\ndata: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SUFFIX = "\n\n".getBytes(StandardCharsets.US_ASCII);

  private final boolean enabled;
  private ServletOutputStream out;
  private boolean framed;

  SseFraming(HttpServletResponse resp, boolean enabled) {
    super(resp);
    this.enabled = enabled;
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    if (out == null) {
      ServletOutputStream real = super.getOutputStream();
      String type = getContentType();
      if (enabled && getStatus() == 200 && type != null && type.startsWith("application/json")) {
        setContentType("text/event-stream");
        setHeader("Cache-Control", "no-cache");
        real.write(PREFIX);
        framed = true;
        out = new Framed(real);
      } else {
        out = real;
      }
    }
    return out;
  }

  // A length the transport computed for its JSON would be wrong once framed; the container counts.
  @Override
  public void setContentLength(int len) {
    if (!enabled) {
      super.setContentLength(len);
    }
  }

  @Override
  public void setContentLengthLong(long len) {
    if (!enabled) {
      super.setContentLengthLong(len);
    }
  }

  @Override
  public void setHeader(String name, String value) {
    if (!(enabled && "Content-Length".equalsIgnoreCase(name))) {
      super.setHeader(name, value);
    }
  }

  void finish() throws IOException {
    if (framed) {
      getResponse().getOutputStream().write(SUFFIX);
    }
  }

  /** Passes bytes through; close is left to the container so the suffix can follow. */
  private static final class Framed extends ServletOutputStream {
    private final ServletOutputStream real;

    Framed(ServletOutputStream real) {
      this.real = real;
    }

    @Override
    public void write(int b) throws IOException {
      real.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      real.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      real.flush();
    }

    @Override
    public void close() {}

    @Override
    public boolean isReady() {
      return real.isReady();
    }

    @Override
    public void setWriteListener(WriteListener listener) {
      real.setWriteListener(listener);
    }
  }
}
