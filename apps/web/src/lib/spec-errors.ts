import { type createMatrixSpecSchema, fieldErrors, isScenarioId, scenarioCatalog } from "@perflab/contracts";
import type { FieldError } from "./form-errors";

type SpecSchema = ReturnType<typeof createMatrixSpecSchema>;

/**
 * Each scenario's parameters checked on their own, with the paths the spec schema gives them
 * ("scenarios.0.params.thinkMs"). Unknown scenarios are the spec schema's to name.
 */
export function scenarioParamErrors(scenarios: readonly { id: string; params?: unknown }[]): FieldError[] {
  return scenarios.flatMap(({ id, params }, i) => {
    if (!isScenarioId(id)) return [];
    const result = scenarioCatalog[id].params.safeParse(params ?? {});
    if (result.success) return [];
    return fieldErrors(result.error).map((e) => ({
      field: e.field === "(body)" ? `scenarios.${i}.params` : `scenarios.${i}.params.${e.field}`,
      message: e.message,
    }));
  });
}

/**
 * Validates a spec as the API will, with every field's errors in one pass. The spec schema checks
 * the scenarios' parameters in a refinement of the whole spec, which zod skips while any field is
 * not even of its type (VUs "abc", an empty duration): the parameters' errors (tool arguments, think
 * time, sessions per VU) would show only once those were fixed. So they are checked on their own too.
 */
export function validateSpec(
  schema: SpecSchema,
  input: { scenarios: readonly { id: string; params?: unknown }[] } & Record<string, unknown>,
) {
  const result = schema.safeParse(input);
  if (result.success) return { spec: result.data, errors: [] as FieldError[] };
  const errors = [...fieldErrors(result.error), ...scenarioParamErrors(input.scenarios)];
  const unique = errors.filter(
    (e, i) => errors.findIndex((o) => o.field === e.field && o.message === e.message) === i,
  );
  return { spec: null, errors: unique };
}
