/** Shared class names, so tables and panels look the same on every page. */
export const panel =
  "rounded-lg border border-zinc-200 bg-white shadow-sm dark:border-zinc-800 dark:bg-zinc-900";
/**
 * A panel that scrolls a wide table sideways. `relative` makes it the containing block of what the
 * table positions absolutely (`sr-only` header labels): without it they are placed against the page
 * and widen it, so a phone scrolls the whole page sideways instead of the table.
 */
export const scrollPanel = `${panel} relative overflow-x-auto`;
export const table = "min-w-full divide-y divide-zinc-200 text-sm dark:divide-zinc-800";
export const th =
  "whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400";
export const td = "whitespace-nowrap px-3 py-2";
export const tdNum = "whitespace-nowrap px-3 py-2 text-right tabular-nums";
export const thNum = `${th} text-right`;
export const tbody = "divide-y divide-zinc-100 dark:divide-zinc-800/70";
export const buttonPrimary =
  "inline-flex items-center justify-center rounded-md bg-sky-700 px-4 py-2 text-sm font-medium text-white shadow-sm hover:bg-sky-800 disabled:cursor-not-allowed disabled:opacity-60";
export const link = "text-sky-700 hover:underline dark:text-sky-400";
export const buttonSecondary =
  "inline-flex items-center justify-center rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium shadow-sm hover:bg-zinc-50 disabled:cursor-not-allowed disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800";
