import type { FieldError } from "@/lib/form-errors";

export const inputClass =
  "block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm outline-none focus:border-sky-500 focus:ring-2 focus:ring-sky-500/30 aria-[invalid=true]:border-rose-500 dark:border-zinc-700 dark:bg-zinc-950";

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
  hint?: string;
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
      {hint && errors.length === 0 && <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">{hint}</p>}
      {errors.map((error) => (
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
