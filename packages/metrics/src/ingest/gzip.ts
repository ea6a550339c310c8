import { pipeline, Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { invalidBody } from "./errors.ts";

/** A body a client gzipped (Content-Encoding: gzip, or a .gz file sent as is) starts with gzip's magic bytes. */
export const isGzip = (head: Uint8Array) => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

/**
 * The body's bytes as sent, or inflated as they are read when they start with gzip's magic bytes
 * (so a gzipped day of output is never whole in memory). `compressed` says which, once the first
 * chunk was seen. A truncated or damaged stream is refused as `(body)`.
 */
export async function plainBody(
  chunks: AsyncIterable<Uint8Array>,
): Promise<{ compressed: boolean; body: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* all(): AsyncGenerator<Uint8Array> {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  if (first.done || !isGzip(first.value)) return { compressed: false, body: all() };
  return { compressed: true, body: gunzipped(all()) };
}

async function* gunzipped(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  // Chunks of 256 KiB, not zlib's 16 KiB: a quarter of the buffers and stream steps per byte read.
  const inflating = createGunzip({ chunkSize: 256 * 1024 });
  // pipeline, not pipe: a failed read of the stored body ends the inflation with its error.
  pipeline(Readable.from(chunks), inflating, () => undefined);
  try {
    for await (const chunk of inflating) yield chunk as Uint8Array;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (!code?.startsWith("Z_")) throw error;
    const truncated = code === "Z_BUF_ERROR" || /unexpected end/i.test(message);
    throw invalidBody(
      truncated ? "is a truncated gzip stream" : `is not a valid gzip stream: ${message}`,
      truncated
        ? "The gzip body ends before its stream does: the file was cut short in transfer, so nothing of it was stored."
        : "The gzip body cannot be inflated.",
    );
  } finally {
    inflating.destroy();
  }
}
