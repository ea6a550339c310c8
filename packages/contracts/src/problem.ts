import { z } from "zod";

/** RFC 9457 problem details, the one error shape of the API (served as application/problem+json). */
export const ZProblem = z.object({
  type: z.string().describe("A URN naming the kind of problem, e.g. urn:perflab:problem:invalid."),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  requestId: z.string().optional(),
  /** One entry per rejected field, with its path such as `loadLevels.0.vus` or a query parameter. */
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type TProblem = z.infer<typeof ZProblem>;

/** Flattens zod issues to `field` paths such as `loadLevels.0.vus`. */
export function fieldErrors(error: z.ZodError): { field: string; message: string }[] {
  return error.issues.flatMap((issue) => {
    // A misspelt or unknown field is named itself, rather than its parent object.
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        field: [...issue.path.map(String), key].join("."),
        message: "is not a known field",
      }));
    }
    return [{ field: issue.path.map(String).join(".") || "(body)", message: issue.message }];
  });
}
