-- AlterTable
ALTER TABLE "gitops_runs" ADD COLUMN "reverted" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN "not_in_git" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN "managed" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN "plan_markdown" TEXT,
ADD COLUMN "accepted" JSONB;

-- CreateTable
CREATE TABLE "gitops_acceptances" (
    "id" BIGSERIAL NOT NULL,
    "repo" TEXT NOT NULL,
    "commit_sha" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "safety" TEXT NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gitops_acceptances_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "gitops_acceptances_repo_commit_sha_key" ON "gitops_acceptances"("repo", "commit_sha");
