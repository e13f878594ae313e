-- Convergence of a config version across the edge pool (docs/snapshots.md, Rollout).
-- The change_seq a snapshot covers: a write made at change_seq N is in the first version whose published_seq >= N.
ALTER TABLE "config_snapshots" ADD COLUMN "published_seq" BIGINT;
-- The change_seq of a GitOps run's last write (null when it wrote nothing).
ALTER TABLE "gitops_runs" ADD COLUMN "config_change" BIGINT;
-- What the edge reported in its last heartbeat: the checksum of the version it serves, and why it refused a newer one.
ALTER TABLE "edge_nodes" ADD COLUMN "config_checksum" TEXT;
ALTER TABLE "edge_nodes" ADD COLUMN "config_error" TEXT;
-- When each edge first reported serving each version; goes with its snapshot.
CREATE TABLE "edge_config_arrivals" (
    "edge_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "edge_config_arrivals_pkey" PRIMARY KEY ("version", "edge_id"),
    CONSTRAINT "edge_config_arrivals_version_fkey" FOREIGN KEY ("version") REFERENCES "config_snapshots"("version") ON DELETE CASCADE ON UPDATE CASCADE
);
