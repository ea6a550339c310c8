-- AlterTable
ALTER TABLE "cell_summaries" ADD COLUMN     "dropped_calls" BIGINT;
