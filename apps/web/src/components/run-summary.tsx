import type { CellDto } from "@/lib/dto";
import type { CellNumbering } from "@/lib/labels";
import { PercentileChart } from "./percentile-chart";
import { StormLevelsTable } from "./storm-levels-table";
import { SummaryTable } from "./summary-table";
import { panel } from "./ui";

/** Rendered on the server from Postgres; the run view refreshes it when a cell finishes. */
export function RunSummary({
  cells,
  catalog,
}: {
  cells: (CellDto & CellNumbering)[];
  /** The catalog's server names in its order: what the chart's colours follow (lib/colours). */
  catalog: string[];
}) {
  if (!cells.some((c) => c.summary !== null)) return null;
  return (
    <section aria-label="Summary" className="space-y-4" data-testid="run-summary">
      <h2 className="text-lg font-semibold">Summary</h2>
      <SummaryTable cells={cells} />
      <div className={`${panel} p-5`}>
        <PercentileChart cells={cells} catalog={catalog} />
      </div>
      <StormLevelsTable cells={cells} />
    </section>
  );
}
