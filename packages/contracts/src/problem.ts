import type { z } from "zod";

/** RFC 9457 problem details, the one error shape of the API. */
export type TProblem = {
  type: string;
  title: string;
  status: number;
  detail?: string;
  requestId?: string;
  errors?: { field: string; message: string }[];
};

/** Flattens zod issues to `field` paths such as `loadLevels.0.vus`. */
export function fieldErrors(error: z.ZodError): { field: string; message: string }[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}
