-- AlterTable
ALTER TABLE "cell_summaries" ADD COLUMN     "gc_collections_per_sec" DOUBLE PRECISION,
ADD COLUMN     "gc_pause_avg_ms" DOUBLE PRECISION,
ADD COLUMN     "gc_pause_max_ms" DOUBLE PRECISION,
ADD COLUMN     "latency_stddev_ms" DOUBLE PRECISION;
