-- CreateTable
CREATE TABLE "metric_rollups" (
    "cell_id" TEXT NOT NULL,
    "bucket_seconds" INTEGER NOT NULL,
    "second" INTEGER NOT NULL,
    "t" TIMESTAMPTZ(3) NOT NULL,
    "phase" "metric_phase" NOT NULL,
    "seconds" INTEGER NOT NULL,
    "requests" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "ops" INTEGER NOT NULL,
    "rps" DOUBLE PRECISION NOT NULL,
    "latency_p50_ms" DOUBLE PRECISION,
    "latency_p90_ms" DOUBLE PRECISION,
    "latency_p95_ms" DOUBLE PRECISION,
    "latency_p99_ms" DOUBLE PRECISION,
    "latency_max_ms" DOUBLE PRECISION,
    "latency_mean_ms" DOUBLE PRECISION,
    "cpu_pct" DOUBLE PRECISION,
    "rss_bytes" BIGINT,
    "k6_cpu_pct" DOUBLE PRECISION,
    "histogram" TEXT,

    CONSTRAINT "metric_rollups_pkey" PRIMARY KEY ("cell_id","bucket_seconds","second")
);

-- AddForeignKey
ALTER TABLE "metric_rollups" ADD CONSTRAINT "metric_rollups_cell_id_fkey" FOREIGN KEY ("cell_id") REFERENCES "cells"("id") ON DELETE CASCADE ON UPDATE CASCADE;
