package dev.perflab.server;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** servers/java's configuration, backends and tools as CDI beans, created once per process. */
@ApplicationScoped
class Beans {
  @Produces
  @Singleton
  Config config() {
    return Config.anyTransport(System.getenv());
  }

  @Produces
  @Singleton
  Backends backends() {
    return new Backends(System.getenv());
  }

  void closeBackends(@Disposes Backends backends) {
    backends.close();
  }

  @Produces
  @Singleton
  Tools tools(Backends backends) {
    return new Tools(backends, new DocumentValidator());
  }
}
