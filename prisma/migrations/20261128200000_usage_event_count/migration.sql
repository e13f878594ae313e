-- A usage event may stand for many alike requests (an edge aggregates them, so a full telemetry
-- queue loses detail, never counts): rows written before it stand for one request each.
ALTER TABLE "usage_events" ADD COLUMN "count" INTEGER NOT NULL DEFAULT 1;
