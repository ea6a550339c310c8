import type { TOperationStats } from "@perflab/contracts";
import type { CellDto } from "@/lib/dto";
import { formatInt, formatMs, formatRate } from "@/lib/format";
import { workloadName } from "@/lib/labels";
import { scrollPanel, table, tbody, td, tdNum, th, thNum } from "./ui";

export function OperationsTable({ cell, operations }: { cell: CellDto; operations: TOperationStats[] }) {
  const seconds = cell.summary?.windowSeconds ?? 0;
  return (
    <section aria-label="Operations">
      <h2 className="mb-3 text-lg font-semibold">
        By tool and method: {cell.serverName}, {workloadName(cell)}
      </h2>
      <div className={scrollPanel}>
        <table className={table} data-testid="operations-table">
          <thead>
            <tr>
              <th className={th}>Method</th>
              <th className={th}>Tool</th>
              <th className={thNum}>Requests</th>
              <th className={thNum} title="Requests per second of the measured window">
                Per s
              </th>
              <th className={thNum}>Errors</th>
              <th className={thNum}>p50</th>
              <th className={thNum}>p90</th>
              <th className={thNum}>p99</th>
            </tr>
          </thead>
          <tbody className={tbody}>
            {operations.map((o) => (
              <tr key={`${o.method} ${o.tool}`} data-testid="operation-row">
                <td className={td}>{o.method}</td>
                <td className={td}>{o.tool}</td>
                <td className={tdNum}>{formatInt(o.count)}</td>
                <td className={tdNum}>{formatRate(seconds > 0 ? o.count / seconds : null)}</td>
                <td className={tdNum}>{formatInt(o.errors)}</td>
                <td className={tdNum}>{formatMs(o.p50)}</td>
                <td className={tdNum}>{formatMs(o.p90)}</td>
                <td className={tdNum}>{formatMs(o.p99)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
