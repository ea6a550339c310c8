import { cloneElement, isValidElement } from "react";
import { type FieldError, mergeByField } from "@/lib/form-errors";

export const inputClass =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm outline-none focus:border-sky-500 focus:ring-2 focus:ring-sky-500/30 aria-[invalid=true]:border-rose-500 dark:border-zinc-700 dark:bg-zinc-950";

/** The ids of a field's hint and of its errors, for its control's aria-describedby. */
export const hintId = (id: string) => `${id}-hint`;
export const errorId = (id: string) => `${id}-error`;

/** What describes a field now: its errors once it has any (its hint is hidden then), else its hint. */
export function describedBy(id: string, hint: React.ReactNode, errors: FieldError[]): string | undefined {
  if (errors.length > 0) return errorId(id);
  return hint ? hintId(id) : undefined;
}

function Hint({ id, hint, errors }: { id: string; hint?: React.ReactNode; errors: FieldError[] }) {
  return (
    <>
      {hint && errors.length === 0 && (
        <p id={hintId(id)} className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
          {hint}
        </p>
      )}
      {errors.length > 0 && (
        <div id={errorId(id)}>
          {mergeByField(errors).map((error) => (
            <p
              key={error.field}
              data-testid={`error-${error.field}`}
              className="mt-1 text-xs text-rose-600 dark:text-rose-400"
            >
              {error.message}
            </p>
          ))}
        </div>
      )}
    </>
  );
}

/**
 * A labelled control with its hint or errors below: the control (the one child) is described by
 * them (aria-describedby) and marked invalid (aria-invalid) while it has errors.
 */
export function FormField({
  id,
  label,
  hint,
  errors,
  children,
  className = "",
}: {
  id: string;
  label: string;
  hint?: React.ReactNode;
  errors: FieldError[];
  children: React.ReactNode;
  className?: string;
}) {
  const control = isValidElement<React.AriaAttributes>(children)
    ? cloneElement(children, {
        "aria-describedby": describedBy(id, hint, errors),
        "aria-invalid": errors.length > 0,
      })
    : children;
  return (
    <div className={className}>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {control}
      <Hint id={id} hint={hint} errors={errors} />
    </div>
  );
}

/** A group of controls (checkboxes) under one legend, its errors below the group. */
export function FieldGroup({
  id,
  legend,
  actions,
  hint,
  errors,
  children,
  className = "",
}: {
  id: string;
  legend: string;
  actions?: React.ReactNode;
  hint?: React.ReactNode;
  errors: FieldError[];
  children: React.ReactNode;
  className?: string;
}) {
  return (
    <fieldset
      id={id}
      className={`min-w-0 ${className}`}
      aria-describedby={describedBy(id, hint, errors)}
      // Where focus goes after a refused submit when this group is the first field in error.
      data-invalid={errors.length > 0 || undefined}
    >
      {/* A floated legend leaves the fieldset's border notch, so it lines up like a label. */}
      <legend className="float-left mb-1 text-sm font-medium">{legend}</legend>
      {actions && <div className="float-right mb-1">{actions}</div>}
      <div className="clear-both">{children}</div>
      <Hint id={id} hint={hint} errors={errors} />
    </fieldset>
  );
}

/** The first control of `form` in error, in the page's order: where focus goes after a refused submit. */
export function focusFirstInvalid(form: HTMLFormElement | null) {
  const first = form?.querySelector<HTMLElement>(
    '[aria-invalid="true"], fieldset[data-invalid] input:not([disabled])',
  );
  first?.focus();
}
