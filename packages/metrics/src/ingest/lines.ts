const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/**
 * The lines of a byte stream as they arrive, without their newline: a line split across chunks is
 * joined first, then decoded as UTF-8 (a newline byte is never inside a multi-byte character).
 */
export async function* linesOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let rest: Uint8Array[] = [];
  for await (const chunk of chunks) {
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      // Most lines lie within one chunk: decoded where they are, not copied first.
      if (rest.length === 0) yield decoder.decode(chunk.subarray(from, at));
      else {
        rest.push(chunk.subarray(from, at));
        yield decoder.decode(Buffer.concat(rest));
        rest = [];
      }
      from = at + 1;
    }
    if (from < chunk.length) rest.push(chunk.subarray(from));
  }
  yield decoder.decode(Buffer.concat(rest));
}
