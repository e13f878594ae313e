-- CreateTable
CREATE TABLE "retention_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "last_started_at" TIMESTAMPTZ(3),
    "last_finished_at" TIMESTAMPTZ(3),
    "last_duration_ms" INTEGER,
    "last_deleted" JSONB NOT NULL DEFAULT '{}',
    "last_error" TEXT,
    "last_success_at" TIMESTAMPTZ(3),

    CONSTRAINT "retention_state_pkey" PRIMARY KEY ("id")
);

