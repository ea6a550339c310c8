-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "membership_role" AS ENUM ('admin', 'member');

-- CreateEnum
CREATE TYPE "server_source" AS ENUM ('builtin', 'registered');

-- CreateEnum
CREATE TYPE "run_source" AS ENUM ('ui', 'api');

-- CreateEnum
CREATE TYPE "run_status" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'partial');

-- CreateEnum
CREATE TYPE "cell_status" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "driver" AS ENUM ('local', 'docker');

-- CreateEnum
CREATE TYPE "metric_phase" AS ENUM ('warmup', 'measure');

-- CreateEnum
CREATE TYPE "report_visibility" AS ENUM ('private', 'unlisted', 'public');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "role" "membership_role" NOT NULL DEFAULT 'member',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "created_by_id" TEXT,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "server_definitions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT,
    "name" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "runtime" TEXT NOT NULL,
    "sdk_name" TEXT NOT NULL,
    "sdk_version" TEXT NOT NULL,
    "source" "server_source" NOT NULL,
    "manifest" JSONB NOT NULL,
    "image" TEXT,
    "command" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "server_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "created_by_id" TEXT,
    "api_token_id" TEXT,
    "baseline_run_id" TEXT,
    "source" "run_source" NOT NULL,
    "status" "run_status" NOT NULL DEFAULT 'queued',
    "name" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "summary" JSONB,
    "error" TEXT,
    "git_repo" TEXT,
    "git_branch" TEXT,
    "git_commit" TEXT,
    "git_pr" INTEGER,
    "cells_total" INTEGER NOT NULL DEFAULT 0,
    "cells_done" INTEGER NOT NULL DEFAULT 0,
    "cells_failed" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cells" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "server_definition_id" TEXT,
    "server_name" TEXT NOT NULL,
    "scenario" TEXT NOT NULL,
    "load_level" JSONB NOT NULL,
    "params" JSONB NOT NULL DEFAULT '{}',
    "round" INTEGER NOT NULL DEFAULT 1,
    "duration_seconds" INTEGER NOT NULL,
    "warmup_seconds" INTEGER NOT NULL DEFAULT 0,
    "status" "cell_status" NOT NULL DEFAULT 'queued',
    "driver" "driver" NOT NULL,
    "host_fingerprint" JSONB,
    "k6_version" TEXT,
    "server_build" JSONB,
    "limits" JSONB,
    "parallelism" JSONB,
    "port" INTEGER,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3),
    "healthy_at" TIMESTAMPTZ(3),
    "cold_start_ms" DOUBLE PRECISION,
    "measure_started_at" TIMESTAMPTZ(3),
    "measure_ended_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "exit_code" INTEGER,
    "exit_signal" TEXT,
    "oom_killed" BOOLEAN NOT NULL DEFAULT false,
    "k6_saturated" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "log_tail" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cells_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cell_summaries" (
    "cell_id" TEXT NOT NULL,
    "requests" BIGINT NOT NULL,
    "errors" BIGINT NOT NULL,
    "ops" BIGINT NOT NULL,
    "http_rps" DOUBLE PRECISION NOT NULL,
    "ops_rps" DOUBLE PRECISION NOT NULL,
    "requests_per_op" DOUBLE PRECISION,
    "latency_avg_ms" DOUBLE PRECISION,
    "latency_min_ms" DOUBLE PRECISION,
    "latency_max_ms" DOUBLE PRECISION,
    "latency_p50_ms" DOUBLE PRECISION,
    "latency_p90_ms" DOUBLE PRECISION,
    "latency_p95_ms" DOUBLE PRECISION,
    "latency_p99_ms" DOUBLE PRECISION,
    "latency_p999_ms" DOUBLE PRECISION,
    "by_operation" JSONB NOT NULL DEFAULT '{}',
    "cpu_avg_pct" DOUBLE PRECISION,
    "cpu_peak_pct" DOUBLE PRECISION,
    "rss_avg_bytes" BIGINT,
    "rss_peak_bytes" BIGINT,
    "k6_cpu_avg_pct" DOUBLE PRECISION,
    "k6_cpu_peak_pct" DOUBLE PRECISION,
    "k6_rss_peak_bytes" BIGINT,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "window_end" TIMESTAMPTZ(3) NOT NULL,
    "window_seconds" DOUBLE PRECISION NOT NULL,
    "histogram" TEXT NOT NULL,
    "k6_requests" BIGINT,
    "host_cpu_avg_pct" DOUBLE PRECISION,
    "data_sent_bytes" BIGINT NOT NULL DEFAULT 0,
    "data_received_bytes" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cell_summaries_pkey" PRIMARY KEY ("cell_id")
);

-- CreateTable
CREATE TABLE "metric_points" (
    "cell_id" TEXT NOT NULL,
    "t" TIMESTAMPTZ(3) NOT NULL,
    "second" INTEGER NOT NULL,
    "phase" "metric_phase" NOT NULL,
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
    "k6_rss_bytes" BIGINT,
    "net_rx_bytes" BIGINT,
    "net_tx_bytes" BIGINT,
    "host_cpu_pct" DOUBLE PRECISION,
    "runtime" JSONB,
    "histogram" TEXT,

    CONSTRAINT "metric_points_pkey" PRIMARY KEY ("cell_id","t")
);

-- CreateTable
CREATE TABLE "reports" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "created_by_id" TEXT,
    "slug" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "selection" JSONB NOT NULL,
    "visibility" "report_visibility" NOT NULL DEFAULT 'unlisted',
    "snapshot" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "reports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "memberships_workspace_id_idx" ON "memberships"("workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_user_id_workspace_id_key" ON "memberships"("user_id", "workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_workspace_id_idx" ON "api_tokens"("workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "server_definitions_workspace_id_name_key" ON "server_definitions"("workspace_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "server_definitions_builtin_name_key" ON "server_definitions"("name") WHERE (workspace_id IS NULL);

-- CreateIndex
CREATE INDEX "runs_workspace_id_created_at_idx" ON "runs"("workspace_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "runs_status_idx" ON "runs"("status");

-- CreateIndex
CREATE INDEX "runs_workspace_id_git_repo_git_branch_created_at_idx" ON "runs"("workspace_id", "git_repo", "git_branch", "created_at" DESC);

-- CreateIndex
CREATE INDEX "cells_status_idx" ON "cells"("status");

-- CreateIndex
CREATE INDEX "cells_server_definition_id_idx" ON "cells"("server_definition_id");

-- CreateIndex
CREATE UNIQUE INDEX "cells_run_id_index_key" ON "cells"("run_id", "index");

-- CreateIndex
CREATE UNIQUE INDEX "reports_slug_key" ON "reports"("slug");

-- CreateIndex
CREATE INDEX "reports_workspace_id_created_at_idx" ON "reports"("workspace_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "server_definitions" ADD CONSTRAINT "server_definitions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_api_token_id_fkey" FOREIGN KEY ("api_token_id") REFERENCES "api_tokens"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_baseline_run_id_fkey" FOREIGN KEY ("baseline_run_id") REFERENCES "runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cells" ADD CONSTRAINT "cells_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cells" ADD CONSTRAINT "cells_server_definition_id_fkey" FOREIGN KEY ("server_definition_id") REFERENCES "server_definitions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cell_summaries" ADD CONSTRAINT "cell_summaries_cell_id_fkey" FOREIGN KEY ("cell_id") REFERENCES "cells"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metric_points" ADD CONSTRAINT "metric_points_cell_id_fkey" FOREIGN KEY ("cell_id") REFERENCES "cells"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
