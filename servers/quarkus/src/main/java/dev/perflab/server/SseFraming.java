package dev.perflab.server;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * The Quarkiverse transport answers a POST whose tools need no progress or logging with
 * application/json; section 2's default is one SSE message event. This response view turns that
 * JSON answer into `event: message` + `data:` when it ends, and passes every other call through.
 */
final class SseFraming implements InvocationHandler {
  private static final Buffer PREFIX = Buffer.buffer("event: message\ndata: ");
  private static final Buffer SUFFIX = Buffer.buffer("\n\n");

  private final HttpServerResponse response;
  private boolean json;

  private SseFraming(HttpServerResponse response) {
    this.response = response;
  }

  static HttpServerResponse wrap(HttpServerResponse response) {
    return (HttpServerResponse) Proxy.newProxyInstance(
        SseFraming.class.getClassLoader(), new Class<?>[] {HttpServerResponse.class}, new SseFraming(response));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    String name = method.getName();
    if (name.equals("putHeader") && args.length == 2 && isJsonContentType(args[0], args[1])) {
      json = true;
      response.putHeader("Content-Type", "text/event-stream");
      return proxy;
    }
    if (json && name.equals("end") && args != null && args.length == 1) {
      Buffer body = args[0] instanceof Buffer b ? b : Buffer.buffer(String.valueOf(args[0]));
      return response.end(Buffer.buffer(body.length() + 24).appendBuffer(PREFIX).appendBuffer(body).appendBuffer(SUFFIX));
    }
    try {
      Object result = method.invoke(response, args);
      return result == response ? proxy : result;
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static boolean isJsonContentType(Object header, Object value) {
    return String.valueOf(header).equalsIgnoreCase("content-type") && String.valueOf(value).startsWith("application/json");
  }
}
