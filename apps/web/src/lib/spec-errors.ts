import { type createMatrixSpecSchema, fieldErrors } from "@perflab/contracts";
import type { FieldError } from "./form-errors";

type SpecSchema = ReturnType<typeof createMatrixSpecSchema>;

/**
 * Validates a spec as the API will: the same schema, every field's errors in one pass (the
 * scenarios' parameters with the load fields), each named by its path ("scenarios.0.params.thinkMs").
 */
export function validateSpec(schema: SpecSchema, input: Record<string, unknown>) {
  const result = schema.safeParse(input);
  if (result.success) return { spec: result.data, errors: [] as FieldError[] };
  return { spec: null, errors: fieldErrors(result.error) };
}
