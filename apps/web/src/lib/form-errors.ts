export type FieldError = { field: string; message: string };

/** Which error paths a form control owns: exact paths, plus everything below `prefix`. */
export type FieldMatch = { exact: string[]; prefix?: string };

const owns = (match: FieldMatch, field: string) =>
  match.exact.includes(field) ||
  (match.prefix !== undefined && (field === match.prefix || field.startsWith(`${match.prefix}.`)));

/** Errors of one control, merged per path so each path renders once. */
export function errorsFor(errors: FieldError[], match: FieldMatch): FieldError[] {
  const byField = new Map<string, string[]>();
  for (const error of errors) {
    if (!owns(match, error.field)) continue;
    byField.set(error.field, [...(byField.get(error.field) ?? []), error.message]);
  }
  return [...byField].map(([field, messages]) => ({ field, message: [...new Set(messages)].join("; ") }));
}

/** Errors no control owns (such as "(body)"), shown above the form. */
export function unclaimedErrors(errors: FieldError[], matches: FieldMatch[]): FieldError[] {
  const rest = errors.filter((error) => !matches.some((match) => owns(match, error.field)));
  return errorsFor(rest, { exact: rest.map((e) => e.field) });
}

/** One entry per field, its messages joined: a field can break several rules at once. */
export function mergeByField(errors: FieldError[]): FieldError[] {
  const merged = new Map<string, string[]>();
  for (const e of errors) merged.set(e.field, [...(merged.get(e.field) ?? []), e.message]);
  return [...merged].map(([field, messages]) => ({ field, message: [...new Set(messages)].join("; ") }));
}
