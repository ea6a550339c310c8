import { z } from "zod";

/**
 * A number, or a numeric string from a form field or a query string. Booleans, arrays and blank
 * strings are refused (plain `z.coerce` would read `true` as 1, `[20]` as 20 and `""` as 0).
 */
export function numeric(schema: z.ZodNumber) {
  return z.preprocess(
    (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value),
    schema,
  );
}

/** Text a client names something with: trimmed, then at least one character and at most `max`. */
export const text = (max: number) =>
  z
    .string({ error: "must be a string" })
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`);

/**
 * A run's git fields, alike wherever they arrive (a matrix's `git`, an upload's query string), so
 * the same repository and branch are stored the same way and the run list's filters find both.
 */
export const gitText = { repo: () => text(500), branch: () => text(500), commit: () => text(200) };

/** A pull request number as text (a query string's value, or a JSON string). */
export const gitPrText = () =>
  z
    .string({ error: "must be a pull request number" })
    .trim()
    .regex(/^\d{1,9}$/, "must be a pull request number");
