-- A failed publish backs off (docs/snapshots.md, Failed publishes): the number of consecutive
-- failures, when the first of them happened, and when the publisher may build again.
ALTER TABLE "publish_state" ADD COLUMN "publish_failures" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "publish_state" ADD COLUMN "failing_since" TIMESTAMPTZ(3);
ALTER TABLE "publish_state" ADD COLUMN "retry_at" TIMESTAMPTZ(3);
