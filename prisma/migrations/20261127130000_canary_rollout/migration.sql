-- Canary rollout with automatic rollback (docs/rollout.md).
-- Labels an edge reports (CDN_EDGE_LABELS), and its last heartbeat's per-version request counters.
ALTER TABLE "edge_nodes" ADD COLUMN "labels" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "edge_nodes" ADD COLUMN "version_counters" JSONB NOT NULL DEFAULT '[]';
-- The version every non-canary edge gets (null: rollout is off, every edge gets active_version),
-- and the version canary edges get while it bakes (null: none bakes).
ALTER TABLE "publish_state" ADD COLUMN "fleet_version" INTEGER;
ALTER TABLE "publish_state" ADD COLUMN "canary_version" INTEGER;
-- One row per version that went to canaries: baking, then promoted, failed or aborted.
CREATE TABLE "config_canaries" (
    "version" INTEGER NOT NULL,
    "baseline_version" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "canary_edges" TEXT[],
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by" TEXT,
    "reason" TEXT,
    "numbers" JSONB,
    CONSTRAINT "config_canaries_pkey" PRIMARY KEY ("version")
);
-- Cores wake held config pulls when any of the three versions moves (the listener re-reads them all).
DROP TRIGGER "publish_state_config_published" ON "publish_state";
CREATE OR REPLACE FUNCTION "notify_config_published"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."active_version" IS DISTINCT FROM OLD."active_version"
     OR NEW."fleet_version" IS DISTINCT FROM OLD."fleet_version"
     OR NEW."canary_version" IS DISTINCT FROM OLD."canary_version" THEN
    PERFORM pg_notify('cdn_config_published', NEW."active_version"::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER "publish_state_config_published"
  AFTER UPDATE OF "active_version", "fleet_version", "canary_version" ON "publish_state"
  FOR EACH ROW EXECUTE FUNCTION "notify_config_published"();
