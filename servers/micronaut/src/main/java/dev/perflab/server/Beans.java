package dev.perflab.server;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import jakarta.inject.Singleton;

/** servers/java's configuration, backends and tools as beans, created once per process. */
@Factory
class Beans {
  @Singleton
  Config config() {
    return Config.anyTransport(System.getenv());
  }

  @Singleton
  @Bean(preDestroy = "close")
  Backends backends() {
    return new Backends(System.getenv());
  }

  /**
   * Micronaut MCP validates tool output against an output schema with networknt 1.x, which cannot
   * share the class path with the 3.x that validate_document uses; no tool here has an output schema.
   */
  @Singleton
  @Replaces(JsonSchemaValidator.class)
  JsonSchemaValidator outputSchemaValidator() {
    return (schema, structuredContent) -> {
      throw new UnsupportedOperationException("no tool of this server declares an output schema");
    };
  }

  @Singleton
  Tools tools(Backends backends) {
    return new Tools(backends, new DocumentValidator());
  }
}
