import { finished, PassThrough, type Readable } from "node:stream";
import type Docker from "dockerode";
import { LogTail } from "./local.ts";

/** A container whose output was attached before it started, so not one line of it is missed. */
export type AttachedContainer = {
  container: Docker.Container;
  /** Its stdout, demultiplexed (no TTY). */
  stdout: PassThrough;
  /** Its stderr, and perflab's notes about the stream. */
  tail: LogTail;
  /** Resolves at the exit (or at once if it already exited when asked). */
  waited: Promise<{ StatusCode: number }>;
  /**
   * Ends the readers a little later (at once for 0): a stream that outlives its container, or an
   * engine that stopped answering, must not hold them. The engine's stream is closed first, so
   * nothing it still delivers is written to an ended reader.
   */
  endStreamsAfter: (ms: number) => void;
  remove: () => Promise<void>;
};

/**
 * Creates and starts a container with stdout and stderr attached first. Nothing passes through the
 * engine's log file or the file system, so an engine on another machine works the same. `prepare`
 * runs between create and start (an archive to put in, say); on any failure the container is removed.
 */
export async function startAttached(
  docker: Docker,
  options: Docker.ContainerCreateOptions,
  what: string,
  prepare?: (container: Docker.Container) => Promise<void>,
): Promise<AttachedContainer> {
  const container = await docker.createContainer({ ...options, AttachStdout: true, AttachStderr: true });
  const remove = () =>
    container
      .remove({ force: true, v: true })
      .then(() => undefined)
      .catch(() => undefined);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const tail = new LogTail();
  stderr.setEncoding("utf8").on("data", (d: string) => tail.push(d));
  let source: Readable | null = null;
  let ending = false;
  const end = () => {
    ending = true;
    source?.destroy();
    stdout.end();
    stderr.end();
  };
  try {
    await prepare?.(container);
    const stream = (await container.attach({
      stream: true,
      stdout: true,
      stderr: true,
    })) as unknown as Readable;
    source = stream;
    docker.modem.demuxStream(stream, stdout, stderr);
    // However the stream ends (end, close, a reset connection), the readers end with it.
    finished(stream, (error) => {
      if (error && !ending) tail.push(`\n[perflab] ${what}'s output stream broke: ${error.message}\n`);
      end();
    });
    await container.start();
    // After start, "not-running" resolves at the exit, or at once if it already exited.
    const waited = container.wait({ condition: "not-running" }) as Promise<{ StatusCode: number }>;
    return {
      container,
      stdout,
      tail,
      waited,
      endStreamsAfter: (ms) => {
        if (ms <= 0) end();
        else setTimeout(end, ms).unref();
      },
      remove,
    };
  } catch (error) {
    end();
    await remove();
    throw error;
  }
}

/** The image's content id, or an error naming the image and what builds it (`build` args). */
export async function requireImage(docker: Docker, image: string, build: string): Promise<string> {
  try {
    return ((await docker.getImage(image).inspect()) as { Id: string }).Id;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    throw new Error(
      `image ${image} is not on the Docker engine: build it with scripts/docker/build-images.sh ${build}`,
    );
  }
}
