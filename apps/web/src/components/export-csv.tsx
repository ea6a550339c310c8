import { buttonSecondary } from "./ui";

/** Downloads the cells and their summaries as CSV (the API's cells.csv), for a spreadsheet. */
export function ExportCsv({ href }: { href: string }) {
  return (
    <a
      href={href}
      download
      className={buttonSecondary}
      data-testid="export-csv"
      title="Every cell with its summary, limits, build and host, one row each"
    >
      Download CSV
    </a>
  );
}
