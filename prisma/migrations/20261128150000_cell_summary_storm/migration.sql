-- AlterTable
ALTER TABLE "cell_summaries" ADD COLUMN     "storm" JSONB;
