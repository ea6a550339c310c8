import type { AnyScenarioModule } from "./catalog.ts";
import type { FormFieldSpec } from "./scenario-module.ts";

/** The run form's text of one scenario's fields, by parameter name. */
export type FormValues = Readonly<Record<string, string>>;

/** The element id of a field's control. */
export const formFieldId = (field: FormFieldSpec): string => field.id ?? field.name;

/** Whether a field shows (and is sent) with these values. */
export function isFieldShown(field: FormFieldSpec, values: FormValues): boolean {
  return field.showWhen === undefined || values[field.showWhen.field] === field.showWhen.is;
}

/** What shows under a field: its chosen option's hint, else its own. */
export function formFieldHint(field: FormFieldSpec, value: string): string | undefined {
  const option = field.kind === "select" ? field.options.find((o) => o.value === value) : undefined;
  return option?.hint ?? field.hint;
}

/** A scenario's fields as the form starts: defaults, the first server's first tool, and what follows them. */
export function initialFormValues(module: AnyScenarioModule, firstTool?: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of module.form) {
    if (field.kind === "select") values[field.name] = field.default;
    else if (field.kind === "server-tool") values[field.name] = firstTool ?? field.default;
    else if (field.kind === "whole-number") values[field.name] = "";
    else if (field.kind === "stored-script") values[field.name] = field.default;
  }
  for (const field of module.form) {
    if (field.kind === "json")
      values[field.name] = field.from ? field.from.value(values[field.from.field] ?? "") : field.initial;
  }
  return values;
}

/** The values with one field changed, and the fields that follow it (a tool's arguments) reset. */
export function withFormValue(
  module: AnyScenarioModule,
  values: FormValues,
  name: string,
  value: string,
): Record<string, string> {
  const next: Record<string, string> = { ...values, [name]: value };
  if (values[name] === value) return next;
  for (const field of module.form) {
    if (field.kind === "json" && field.from?.field === name) next[field.name] = field.from.value(value);
  }
  return next;
}

/**
 * The values once the selected servers changed: a tool they do not all offer becomes the first one
 * they share (when they share any), its followers reset. `tools` is null when no server lists tools.
 */
export function withServerTools(
  module: AnyScenarioModule,
  values: FormValues,
  tools: readonly string[] | null,
): Record<string, string> {
  let next: Record<string, string> = { ...values };
  for (const field of module.form) {
    const current = next[field.name] ?? "";
    if (field.kind !== "server-tool" || !tools || tools.length === 0 || tools.includes(current)) continue;
    next = withFormValue(module, next, field.name, tools[0]!);
  }
  return next;
}

/** The scenario's parameters from the form: shown fields only, blank numbers and omitted defaults left out. */
export function formParams(module: AnyScenarioModule, values: FormValues): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const field of module.form) {
    const text = values[field.name] ?? "";
    if (!isFieldShown(field, values)) continue;
    if (field.kind === "whole-number") {
      if (text.trim()) params[field.name] = Number(text);
    } else if (!(field.kind === "select" && field.omitDefault && text === field.default)) {
      params[field.name] = text;
    }
  }
  return params;
}
