import { z } from "zod";

/**
 * A number, or a numeric string from a form field or a query string. Booleans, arrays and blank
 * strings are refused (plain `z.coerce` would read `true` as 1, `[20]` as 20 and `""` as 0).
 */
export function numeric(schema: z.ZodNumber) {
  return z.preprocess(
    (value) => (typeof value === "string" && DECIMAL.test(value) ? Number(value) : value),
    schema,
  );
}

/** A number as people write one (hex, binary and "Infinity" are not: `Number` would take them). */
const DECIMAL = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A high surrogate without its low one, or a low one without its high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a string is well-formed Unicode. JSON can spell an unpaired surrogate ("\ud800"), which
 * has no UTF-8 form: Postgres' jsonb refuses it and text columns would keep U+FFFD instead.
 */
export const isWellFormedText = (value: string) => !LONE_SURROGATE.test(value);
export const ILL_FORMED_MESSAGE = "must not contain an unpaired surrogate (\\ud800–\\udfff)";

/**
 * What in a JSON value the lab cannot store, and where: a NUL character or an unpaired surrogate in
 * a string or key. Iterative, so a deep value cannot overflow the stack.
 */
export function unstorableTextIn(root: unknown): { path: (string | number)[]; message: string } | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  const problem = (text: string) =>
    text.includes("\u0000")
      ? "must not contain a NUL character"
      : isWellFormedText(text)
        ? null
        : ILL_FORMED_MESSAGE;
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      const message = problem(value);
      if (message) return { path, message };
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        const message = problem(key);
        if (message)
          return { path, message: message.replace("must not contain", "must not have a key with") };
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}

/** Text a client names something with: trimmed, then at least one character and at most `max`. */
export const text = (max: number) =>
  z
    .string({ error: "must be a string" })
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine(isWellFormedText, ILL_FORMED_MESSAGE);

const utf8 = new TextEncoder();
const withinBytes = (max: number) => (value: string) => utf8.encode(value).length <= max;
/**
 * Repository and branch share two of the runs table's indexes, and Postgres refuses an index entry
 * past 2,704 bytes: 500 characters of a script written in three UTF-8 bytes each, in both, would
 * pass a length check and fail the write. Their bytes are counted too.
 */
const GIT_FIELD_MAX_BYTES = 1000;
const GIT_FIELD_BYTES_MESSAGE = `must be at most ${GIT_FIELD_MAX_BYTES} bytes in UTF-8`;

/**
 * A run's git fields, alike wherever they arrive (a matrix's `git`, an upload's query string), so
 * the same repository and branch are stored the same way and the run list's filters find both.
 */
export const gitText = {
  repo: () => text(500).refine(withinBytes(GIT_FIELD_MAX_BYTES), GIT_FIELD_BYTES_MESSAGE),
  branch: () => text(500).refine(withinBytes(GIT_FIELD_MAX_BYTES), GIT_FIELD_BYTES_MESSAGE),
  commit: () => text(200),
};

/** A pull request number as text (a query string's value, or a JSON string). */
export const gitPrText = () =>
  z
    .string({ error: "must be a pull request number" })
    .trim()
    .regex(/^\d{1,9}$/, "must be a pull request number");
