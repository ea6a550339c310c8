const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/**
 * A byte stream cut at line ends as it arrives: blocks of whole lines, each block ending with a
 * newline (a line split across chunks is joined first), then what follows the last newline (empty
 * when the stream ended with one), the only block without a newline at its end. A decoder can read
 * a block at once instead of a line at a time; a newline byte is never inside a UTF-8 character.
 */
export async function* lineBlocksOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let rest: Uint8Array[] = [];
  for await (const chunk of chunks) {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) {
      rest.push(chunk);
      continue;
    }
    // Most of a chunk is yielded where it is; only a line straddling two chunks is copied.
    if (rest.length === 0) yield chunk.subarray(0, last + 1);
    else {
      rest.push(chunk.subarray(0, last + 1));
      yield Buffer.concat(rest);
    }
    rest = last + 1 < chunk.length ? [chunk.subarray(last + 1)] : [];
  }
  yield Buffer.concat(rest);
}

/** Whether a block of lineBlocksOf holds whole lines (else it is the stream's unended last line). */
export const endsWithNewline = (block: Uint8Array) => block.at(-1) === NEWLINE;

/** A block's lines without their newline, each decoded as UTF-8 on its own. */
export function* linesOfBlock(block: Uint8Array): Generator<string> {
  let from = 0;
  for (let at = block.indexOf(NEWLINE); at !== -1; at = block.indexOf(NEWLINE, from)) {
    yield decoder.decode(block.subarray(from, at));
    from = at + 1;
  }
  if (!endsWithNewline(block)) yield decoder.decode(block.subarray(from));
}

/** The lines of a byte stream as they arrive, without their newline (the last one too, maybe empty). */
export async function* linesOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  for await (const block of lineBlocksOf(chunks)) yield* linesOfBlock(block);
}
