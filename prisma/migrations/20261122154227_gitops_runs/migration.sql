-- CreateTable
CREATE TABLE "gitops_runs" (
    "id" BIGSERIAL NOT NULL,
    "repo" TEXT NOT NULL,
    "branch" TEXT,
    "commit_sha" TEXT,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "counts" JSONB NOT NULL DEFAULT '{}',
    "domains" JSONB NOT NULL DEFAULT '[]',
    "problems" JSONB NOT NULL DEFAULT '[]',
    "drift" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gitops_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "gitops_runs_repo_id_idx" ON "gitops_runs"("repo", "id");

