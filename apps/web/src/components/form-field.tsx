import { type FieldError, mergeByField } from "@/lib/form-errors";

export const inputClass =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm outline-none focus:border-sky-500 focus:ring-2 focus:ring-sky-500/30 aria-[invalid=true]:border-rose-500 dark:border-zinc-700 dark:bg-zinc-950";

function Hint({ id, hint, errors }: { id?: string; hint?: React.ReactNode; errors: FieldError[] }) {
  return (
    <div id={id}>
      {hint && errors.length === 0 && <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">{hint}</p>}
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
  );
}

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
  return (
    <div className={className}>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {children}
      <Hint hint={hint} errors={errors} />
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
    <fieldset id={id} className={`min-w-0 ${className}`} aria-describedby={`${id}-hint`}>
      {/* A floated legend leaves the fieldset's border notch, so it lines up like a label. */}
      <legend className="float-left mb-1 text-sm font-medium">{legend}</legend>
      {actions && <div className="float-right mb-1">{actions}</div>}
      <div className="clear-both">{children}</div>
      <Hint id={`${id}-hint`} hint={hint} errors={errors} />
    </fieldset>
  );
}
