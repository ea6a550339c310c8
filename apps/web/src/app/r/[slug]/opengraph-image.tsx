import { notFound } from "next/navigation";
import { ImageResponse } from "next/og";
import { formatInt, formatMs } from "@/lib/format";
import { reportHeadline } from "@/lib/report-headline";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { getReport } from "@/server/operations/get-report";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const alt = "The report's headline comparison: operations per second and p99 latency per server";
export const size = { width: 1200, height: 630 };
export const contentType = "image/png";

/**
 * The report's headline comparison as a picture, for previews in pull requests and chats. Read as a
 * visitor without a token: a private report has no image, whoever asks (a forwarded image URL
 * must not show what the page would refuse).
 */
export default async function Image({ params }: { params: Promise<{ slug: string }> | { slug: string } }) {
  const { slug } = await params;
  const report = await getReport({ db: getDb(), slug }).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  });
  const { run, cells } = report.snapshot;
  const headline = reportHeadline(cells, run.spec.servers ?? []);
  const cache = report.visibility === "public" ? "public, max-age=3600" : "private, no-store";
  return new ImageResponse(
    <div
      style={{
        display: "flex",
        flexDirection: "column",
        width: "100%",
        height: "100%",
        padding: 56,
        background: "#ffffff",
        color: "#18181b",
        fontSize: 28,
      }}
    >
      <div style={{ display: "flex", fontSize: 24, color: "#71717a" }}>perflab report</div>
      <div style={{ display: "flex", fontSize: 48, fontWeight: 700, marginTop: 8 }}>
        {report.title.slice(0, 80)}
      </div>
      <div style={{ display: "flex", color: "#52525b", marginTop: 8 }}>
        {headline ? `${headline.scenario} · ${headline.level}` : "No result to compare"}
      </div>
      <div style={{ display: "flex", flexDirection: "column", marginTop: 36 }}>
        {(headline?.bars ?? []).slice(0, 6).map((bar) => (
          <div key={bar.serverName} style={{ display: "flex", alignItems: "center", marginBottom: 18 }}>
            <div style={{ display: "flex", width: 200 }}>{bar.serverName.slice(0, 16)}</div>
            <div style={{ display: "flex", width: 480, height: 40, background: "#f4f4f5" }}>
              <div
                style={{
                  display: "flex",
                  width: `${Math.max(1, bar.ratio * 100)}%`,
                  height: 40,
                  background: bar.fastest ? "#059669" : "#6366f1",
                }}
              />
            </div>
            <div style={{ display: "flex", marginLeft: 20, whiteSpace: "nowrap" }}>
              {`${formatInt(bar.opsRps)} ops/s · p99 ${formatMs(bar.p99Ms)}`}
            </div>
          </div>
        ))}
      </div>
    </div>,
    { ...size, headers: { "cache-control": cache } },
  );
}
