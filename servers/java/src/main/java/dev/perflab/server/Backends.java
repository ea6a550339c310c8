package dev.perflab.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Redis, Postgres and the fixture API. Clients are created on first use so the server starts, and
 * the pure tools work, when none of the fixtures run; a bad URL becomes a tool error, not a crash.
 */
final class Backends implements AutoCloseable {
  static final Duration API_TIMEOUT = Duration.ofSeconds(15);
  private static final DateTimeFormatter CREATED_AT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'");

  private final Map<String, String> env;
  private final String apiUrl;
  private final HttpClient http;

  /** The Redis pool's size: at most this many commands can be on the wire at once anyway. */
  static final int REDIS_MAX_CONNECTIONS = 64;
  /**
   * Jedis is blocking, so a Redis command issued beside another one on the request thread needs a
   * thread of its own (as the HTTP client's async calls run on the client's own threads). Threads
   * start on demand, at most one per pooled connection, and retire after 60 s idle; they only wait
   * on Redis replies (no CPU work runs here).
   */
  private static final ThreadPoolExecutor REDIS_ASYNC = newRedisExecutor();

  private RedisClient redis;
  private ToolException redisError;
  private HikariDataSource pg;
  private ToolException pgError;

  Backends(Map<String, String> env) {
    this.env = env;
    this.apiUrl = blankToNull(env.get("FIXTURE_API_URL"));
    // One pooled HTTP/1.1 client for every upstream call. Its pool is unbounded per host; the
    // idle timeout is raised in Main before the client class loads (jdk.httpclient.keepalive.timeout).
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
  }

  synchronized RedisClient redis() throws ToolException {
    if (redis == null && redisError == null) {
      String url = blankToNull(env.get("REDIS_URL"));
      if (url == null) {
        redisError = ToolException.backend("REDIS_URL is not set");
      } else {
        try {
          redis = newRedis(new URI(url));
        } catch (URISyntaxException | RuntimeException e) {
          redisError = ToolException.backend("REDIS_URL: " + e.getMessage());
        }
      }
    }
    if (redisError != null) {
      throw redisError;
    }
    return redis;
  }

  private static RedisClient newRedis(URI uri) {
    if (!JedisURIHelper.isValid(uri)) {
      throw new IllegalArgumentException("not a redis:// URL");
    }
    DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(2000)
        .socketTimeoutMillis(5000)
        // RESP2, as ioredis, redis-py and the redis crate speak by default. Without a protocol, Jedis
        // negotiates one (HELLO 3, else RESP2) on a connection it borrows while the client is built:
        // a Redis that does not answer cost 5 s there before the first command's own 5 s.
        .protocol(RedisProtocol.RESP2)
        .database(JedisURIHelper.getDBIndex(uri))
        .ssl(JedisURIHelper.isRedisSSLScheme(uri));
    if (JedisURIHelper.getPassword(uri) != null) {
      client.user(JedisURIHelper.getUser(uri)).password(JedisURIHelper.getPassword(uri));
    }
    // The contract's budget: at most 64 connections, opened on demand; a borrow waits 5 s at most.
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(REDIS_MAX_CONNECTIONS);
    pool.setMaxIdle(REDIS_MAX_CONNECTIONS);
    pool.setMinIdle(0);
    pool.setMaxWait(Duration.ofSeconds(5));
    return RedisClient.builder()
        .hostAndPort(JedisURIHelper.getHostAndPort(uri))
        .clientConfig(client.build())
        .poolConfig(pool)
        .build();
  }

  private static ThreadPoolExecutor newRedisExecutor() {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor executor = new ThreadPoolExecutor(REDIS_MAX_CONNECTIONS, REDIS_MAX_CONNECTIONS,
        60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "redis-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  /** Starts one Redis command on its own thread; pair it with {@link #awaitRedis}. */
  static <T> CompletableFuture<T> redisStart(Supplier<T> command) {
    return CompletableFuture.supplyAsync(command, REDIS_ASYNC);
  }

  /**
   * Waits for a started Redis command. Jedis bounds it (5 s to borrow a connection, 2 s to connect,
   * 5 s per read); the outer limit only guards against a lost future.
   */
  static <T> T awaitRedis(CompletableFuture<T> command) throws JedisException {
    try {
      return command.get(15, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw cause instanceof JedisException je ? je : new JedisException(cause.toString(), cause);
    } catch (TimeoutException e) {
      command.cancel(true);
      throw new JedisException("timed out");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JedisException("interrupted");
    }
  }

  synchronized HikariDataSource postgres() throws ToolException {
    if (pg == null && pgError == null) {
      String url = blankToNull(env.get("DATABASE_URL"));
      if (url == null) {
        pgError = ToolException.backend("DATABASE_URL is not set");
      } else {
        try {
          pg = newPostgres(new URI(url));
        } catch (URISyntaxException | RuntimeException e) {
          pgError = ToolException.backend("DATABASE_URL: " + e.getMessage());
        }
      }
    }
    if (pgError != null) {
      throw pgError;
    }
    return pg;
  }

  /** Turns postgres://user:pass@host:port/db?opts into HikariCP + pgjdbc settings. */
  private static HikariDataSource newPostgres(URI uri) {
    if (!"postgres".equals(uri.getScheme()) && !"postgresql".equals(uri.getScheme())) {
      throw new IllegalArgumentException("not a postgres:// URL");
    }
    String jdbcUrl = "jdbc:postgresql://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "")
        + (uri.getRawPath() == null ? "/" : uri.getRawPath())
        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    HikariConfig cfg = new HikariConfig();
    cfg.setPoolName("fixtures-pg");
    cfg.setJdbcUrl(jdbcUrl);
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      cfg.setUsername(decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
      if (colon >= 0) {
        cfg.setPassword(decode(userInfo.substring(colon + 1)));
      }
    }
    cfg.setMaximumPoolSize(25);
    cfg.setMinimumIdle(0); // connections open on demand (the default fills the pool to 25 at once)
    cfg.setConnectionTimeout(5000); // waiting for a free connection under load
    cfg.setInitializationFailTimeout(-1); // start even if Postgres is down; calls then fail
    cfg.addDataSourceProperty("connectTimeout", "2"); // seconds, pgjdbc's TCP connect limit
    return new HikariDataSource(cfg);
  }

  /** SELECTs one users row as canonical JSON, or throws not_found / backend_unavailable. */
  String lookupUser(int id) throws ToolException {
    HikariDataSource ds = postgres();
    try (Connection c = ds.getConnection();
         PreparedStatement st = c.prepareStatement("SELECT id, name, email, created_at FROM users WHERE id = ?")) {
      st.setQueryTimeout(5);
      st.setInt(1, id);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          throw new ToolException("not_found: user " + id);
        }
        OffsetDateTime created = rs.getObject(4, OffsetDateTime.class);
        return new Json().beginObject()
            .field("id", rs.getInt(1))
            .field("name", rs.getString(2))
            .field("email", rs.getString(3))
            .field("created_at", created.withOffsetSameInstant(ZoneOffset.UTC).format(CREATED_AT))
            .endObject().toString();
      }
    } catch (SQLException e) {
      throw ToolException.backend("postgres: " + e.getMessage());
    }
  }

  /** Starts a fixture API call; pair it with {@link #await} so it runs beside other work. */
  CompletableFuture<HttpResponse<String>> apiStart(String method, String path, String jsonBody) throws ToolException {
    if (apiUrl == null) {
      throw ToolException.backend("FIXTURE_API_URL is not set");
    }
    HttpRequest.Builder req;
    try {
      req = HttpRequest.newBuilder(URI.create(apiUrl + path)).timeout(API_TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw ToolException.backend("FIXTURE_API_URL: " + e.getMessage());
    }
    if (jsonBody != null) {
      req.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(jsonBody));
    } else {
      req.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return http.sendAsync(req.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** Waits for a started call and returns the body of a 2xx answer. */
  static String await(CompletableFuture<HttpResponse<String>> call, String method, String path) throws ToolException {
    HttpResponse<String> resp;
    try {
      // The request has its own 15 s timeout; the extra second only guards against a lost future.
      resp = call.get(API_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw ToolException.backend("fixture API: " + cause);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw ToolException.backend("fixture API: timed out");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ToolException.backend("fixture API: interrupted");
    }
    if (resp.statusCode() / 100 != 2) {
      throw new ToolException("upstream_error: fixture API " + method + " " + path + " answered HTTP " + resp.statusCode());
    }
    return resp.body();
  }

  String api(String method, String path, String jsonBody) throws ToolException {
    return await(apiStart(method, path, jsonBody), method, path);
  }

  @Override
  public synchronized void close() {
    if (redis != null) {
      redis.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
