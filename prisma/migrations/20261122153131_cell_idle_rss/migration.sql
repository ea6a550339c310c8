-- AlterTable
ALTER TABLE "cells" ADD COLUMN     "idle_rss_bytes" BIGINT;
