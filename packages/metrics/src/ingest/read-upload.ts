import type { TUploadFormat, TUploadQuery } from "@perflab/contracts";
import { K6OutputDecoder } from "./decoder.ts";
import { checkDeclaredFormat, detectFormat } from "./detect.ts";
import { invalidBody } from "./errors.ts";
import { plainBody } from "./gzip.ts";
import { K6JsonDecoder } from "./k6-json.ts";
import { K6_SUMMARY_MAX_BYTES, parseK6Summary } from "./k6-summary.ts";
import { linesOf } from "./lines.ts";
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
  const lines = linesOf(body)[Symbol.asyncIterator]();
  const head: string[] = [];
  let detected: ReturnType<typeof detectFormat> | null = null;
  // Blank lines before the first are kept: perflab's decoder numbers lines from the file's first.
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    head.push(next.value);
    if (next.value.trim()) {
      detected = detectFormat(next.value);
      break;
    }
  }
  checkDeclaredFormat(meta.format, detected ?? "perflab");
  const rest = { head, lines };
  if (detected === "k6-summary") return summaryRecordOf(meta, rest, bytes, compressed);
  if (detected === "k6-json") return k6JsonRecord(meta, rest, bytes, compressed);
  const decoder = new K6OutputDecoder(uploadDecoderOptions(meta));
  for await (const line of remaining(rest)) decoder.feed(line);
  return uploadRecord(meta, decoder.end(), bytes, { format: "perflab", compressed, lacks: [NO_RESOURCES] });
}

type Rest = { head: string[]; lines: AsyncIterator<string> };

async function* remaining({ head, lines }: Rest): AsyncGenerator<string> {
  yield* head;
  for (let next = await lines.next(); !next.done; next = await lines.next()) yield next.value;
}

async function k6JsonRecord(meta: TUploadQuery, rest: Rest, bytes: number, compressed: boolean) {
  const decoder = new K6JsonDecoder(uploadDecoderOptions(meta, "k6-json"));
  for await (const line of remaining(rest)) decoder.feed(line);
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

async function summaryRecordOf(meta: TUploadQuery, rest: Rest, bytes: number, compressed: boolean) {
  let text = "";
  for await (const line of remaining(rest)) {
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
