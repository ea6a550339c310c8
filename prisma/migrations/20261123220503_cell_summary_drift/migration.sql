-- AlterTable
ALTER TABLE "cell_summaries" ADD COLUMN     "drift" JSONB;
