-- AlterTable
ALTER TABLE "cell_summaries" ADD COLUMN     "timeouts" BIGINT;
