import Docker from "dockerode";

export const LABEL_CELL = "perflab.cell";
export const LABEL_RUN = "perflab.run";
export const LABEL_SERVER = "perflab.server";
/** `<host id>:<worker pid>`, as in the local driver's process marker. */
export const LABEL_OWNER = "perflab.owner";
/** Random per worker process: tells a restarted worker that reuses its pid (pid 1 in a container) from itself. */
export const LABEL_INSTANCE = "perflab.instance";
/** What a container is to its cell or worker: k6, probe, or a fixture backend (the server's has none). */
export const LABEL_ROLE = "perflab.role";

/** A client for the engine at a DOCKER_HOST-style address (unix://, tcp://host:port), or the default socket. */
export function dockerAt(dockerHost?: string): Docker {
  // DOCKER_HOST itself: docker-modem also reads DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, as the CLI does.
  if (!dockerHost || dockerHost === process.env.DOCKER_HOST) return new Docker();
  const url = new URL(dockerHost);
  if (url.protocol === "unix:") return new Docker({ socketPath: url.pathname });
  if (url.protocol === "tcp:") return new Docker({ host: url.hostname, port: Number(url.port || 2375) });
  // ssh:// and the rest: docker-modem reads DOCKER_HOST itself.
  return new Docker();
}

export const isStatus = (error: unknown, ...codes: number[]) =>
  codes.includes((error as { statusCode?: number }).statusCode ?? -1);

/** How long an engine call that should answer at once may take before the driver stops waiting on it. */
export const ENGINE_CALL_MS = 10_000;

/**
 * The promise, or an error once `ms` passed: a connection to a remote engine that was dropped
 * without a reset never answers, and a cell must not wait on it forever.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the engine within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A registered image's content id, or an error naming the image and how it gets onto the engine. */
export async function requireRegisteredImage(docker: Docker, image: string, server: string, remote: boolean) {
  try {
    return ((await docker.getImage(image).inspect()) as { Id: string }).Id;
  } catch (error) {
    if (!isStatus(error, 404)) throw error;
    throw new Error(
      `image ${image} is not on the Docker engine: the manifest of ${server} registers it as a prebuilt image, so pull or load it there (docker pull ${image}${remote ? " with DOCKER_HOST set to this engine" : ""})`,
    );
  }
}
