import type { TUploadFormat, TUploadQuery } from "@perflab/contracts";
import { K6OutputDecoder } from "./decoder.ts";
import { checkDeclaredFormat, type Detected, detectFormat } from "./detect.ts";
import { invalidBody } from "./errors.ts";
import { plainBody } from "./gzip.ts";
import { K6JsonDecoder } from "./k6-json.ts";
import { K6_SUMMARY_MAX_BYTES, parseK6Summary } from "./k6-summary.ts";
import { endsWithNewline, lineBlocksOf, linesOfBlock } from "./lines.ts";
import { summaryUploadRecord } from "./summary-record.ts";
import { type UploadRecord, uploadDecoderOptions, uploadRecord } from "./upload.ts";

/** Said of every uploaded run: k6 measures from the client. */
const NO_RESOURCES = "no CPU or memory of the server: k6 measures from the client";

/**
 * The one ingest path of an upload's body, whatever it is: inflated when gzipped, its format found
 * from its first line (or the query's `format`, checked against it), then decoded by that format's
 * decoder into the record the worker stores. Refusals are IngestErrors naming the line or field.
 */
export async function decodeUploadBody(
  meta: TUploadQuery,
  chunks: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<UploadRecord> {
  const { compressed, body } = await plainBody(chunks);
  const { detected, blocks } = await detectedFormat(body);
  checkDeclaredFormat(meta.format, detected ?? "perflab");
  if (detected === "k6-summary") return summaryRecordOf(meta, linesOfBlocks(blocks), bytes, compressed);
  if (detected === "k6-json") return k6JsonRecord(meta, blocks, bytes, compressed);
  const decoder = new K6OutputDecoder(uploadDecoderOptions(meta));
  for await (const line of linesOfBlocks(blocks)) decoder.feed(line);
  return uploadRecord(meta, decoder.end(), bytes, { format: "perflab", compressed, lacks: [NO_RESOURCES] });
}

/**
 * The format from the body's first non-blank line, and the body's blocks of lines from its start:
 * the blocks read to find it, then the rest (a decoder numbers lines from the file's first).
 */
async function detectedFormat(body: AsyncIterable<Uint8Array>) {
  const iterator = lineBlocksOf(body)[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let detected: Detected | null = null;
  while (detected === null) {
    const next = await iterator.next();
    if (next.done) break;
    head.push(next.value);
    for (const line of linesOfBlock(next.value)) {
      if (!line.trim()) continue;
      detected = detectFormat(line);
      break;
    }
  }
  async function* blocks(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { detected, blocks: blocks() };
}

async function* linesOfBlocks(blocks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  for await (const block of blocks) yield* linesOfBlock(block);
}

const utf8 = new TextDecoder();

/** k6's `--out json` a block of lines at a time: most lines are read where they lie in the block. */
async function k6JsonRecord(
  meta: TUploadQuery,
  blocks: AsyncIterable<Uint8Array>,
  bytes: number,
  compressed: boolean,
) {
  const decoder = new K6JsonDecoder(uploadDecoderOptions(meta, "k6-json"));
  for await (const block of blocks) {
    // A block starts and ends at a line's end, so decoding it whole splits no character.
    if (endsWithNewline(block)) decoder.feedLines(utf8.decode(block));
    else decoder.feed(utf8.decode(block));
  }
  const output = decoder.end();
  const record = uploadRecord(meta, output, bytes, { format: "k6-json", compressed, lacks: [] });
  record.spec.upload.lacks = k6JsonLacks(record);
  return record;
}

function k6JsonLacks(record: UploadRecord): string[] {
  return [
    NO_RESOURCES,
    "no k6 version: --out json does not record it",
    ...(record.summary.ops === 0
      ? [
          "no MCP operations: no request is tagged with the operation's JSON-RPC method, so latency is of whole requests",
        ]
      : []),
  ];
}

async function summaryRecordOf(
  meta: TUploadQuery,
  lines: AsyncIterable<string>,
  bytes: number,
  compressed: boolean,
) {
  let text = "";
  for await (const line of lines) {
    text += `${line}\n`;
    if (text.length > K6_SUMMARY_MAX_BYTES) {
      throw invalidBody(
        `is larger than ${K6_SUMMARY_MAX_BYTES} bytes for a k6 summary`,
        "The body reads as a k6 summary, which k6 writes in a few KiB: this one is too large to be one.",
      );
    }
  }
  const summary = parseK6Summary(text);
  checkDeclaredFormat(meta.format as TUploadFormat | undefined, summary.format);
  return summaryUploadRecord(meta, summary, bytes, compressed);
}
