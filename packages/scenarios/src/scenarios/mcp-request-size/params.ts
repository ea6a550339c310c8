import { z } from "zod";

/** The largest echo message the servers take (servers/CONTRACT.md section 4.1), and pad_to_bytes' bound. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** The sizes study 000 swept, 1 KiB to 1 MiB: the run form's hint and the payload study's levels. */
export const requestSizes = [1024, 10_240, 102_400, 1_048_576] as const;

const bytes = (min: number) =>
  z
    .number({ error: "must be a whole number of bytes" })
    .int("must be a whole number of bytes")
    .min(min, `must be at least ${min}`)
    .max(MAX_MESSAGE_BYTES, `must be at most ${MAX_MESSAGE_BYTES} (1 MiB)`);

/**
 * An echo whose message is `messageBytes` long (the request grows, and the answer with it), padded
 * to `padToBytes` when that is longer (the answer alone grows, as pad_to_bytes does).
 */
export const ZMcpRequestSizeParams = z.strictObject({
  messageBytes: bytes(1).default(1024),
  /** Left out when 0, as echo takes it. */
  padToBytes: bytes(0)
    .optional()
    .transform((n) => (n === 0 ? undefined : n)),
});
export type TMcpRequestSizeParams = z.output<typeof ZMcpRequestSizeParams>;

/**
 * echo's arguments as JSON text: a message of `messageBytes` ASCII letters (one byte each in UTF-8
 * and in JSON, so the request carries exactly that many), and pad_to_bytes when set.
 */
export function requestSizeArguments(params: TMcpRequestSizeParams): string {
  const message = "x".repeat(params.messageBytes);
  return JSON.stringify(
    params.padToBytes === undefined ? { message } : { message, pad_to_bytes: params.padToBytes },
  );
}

/** What an upload's arguments say of the sizes: the message's bytes and pad_to_bytes. */
export function requestSizeOf(args: Record<string, unknown> | undefined): Record<string, unknown> {
  const message = args?.message;
  const pad = args?.pad_to_bytes;
  return {
    ...(typeof message === "string" ? { messageBytes: new TextEncoder().encode(message).length } : {}),
    ...(typeof pad === "number" ? { padToBytes: pad } : {}),
  };
}
