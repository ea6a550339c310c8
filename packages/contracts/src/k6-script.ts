import { z } from "zod";
import { ILL_FORMED_MESSAGE, isWellFormedText } from "./fields.ts";

/** The largest k6 script the lab stores: a hand-written load test, not a bundle. */
export const K6_SCRIPT_MAX_BYTES = 256 * 1024;

/** A k6 script to store in the caller's workspace (`POST /api/v1/scripts`, `perflab script add`). */
export const ZCreateK6Script = z.strictObject({
  name: z
    .string({ error: "must be a string" })
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "must be 1-100 letters, digits, dots, dashes or underscores"),
  source: z
    .string({ error: "must be the script's JavaScript as a string" })
    .min(1, "must not be empty")
    .refine(
      (s) => new TextEncoder().encode(s).length <= K6_SCRIPT_MAX_BYTES,
      `must be at most ${K6_SCRIPT_MAX_BYTES} bytes`,
    )
    // Postgres text holds neither.
    .refine((s) => !s.includes("\u0000"), "must not contain a NUL character")
    .refine(isWellFormedText, ILL_FORMED_MESSAGE),
});
export type TCreateK6Script = z.input<typeof ZCreateK6Script>;

export const ZK6ScriptDto = z.object({
  id: z.string().describe("What a matrix's k6-script scenario names as `params.scriptId`."),
  name: z.string(),
  sha256: z.string().describe("SHA-256 (hex) of the source."),
  bytes: z.number().int(),
  createdAt: z.iso.datetime({ offset: true }),
});
export type TK6ScriptDto = z.infer<typeof ZK6ScriptDto>;

export const ZK6ScriptWithSource = ZK6ScriptDto.extend({ source: z.string() });
export type TK6ScriptWithSource = z.infer<typeof ZK6ScriptWithSource>;

export const ZK6ScriptList = z.object({ scripts: z.array(ZK6ScriptDto).describe("Newest first.") });
export type TK6ScriptList = z.infer<typeof ZK6ScriptList>;
