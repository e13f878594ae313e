-- Domains a GitOps repository owned whose file is gone, reported per run
ALTER TABLE "gitops_runs" ADD COLUMN "orphaned" JSONB NOT NULL DEFAULT '[]';
