-- Versions are stored by pieces (docs/snapshots.md, "Storing versions by pieces"): each domain's
-- piece once, by its SHA-256, and per version only the bytes around the pieces and the list of
-- their digests. At 10,000 domains a one-record change stores one piece and 320 KB of digests
-- instead of the whole 17 MiB body. Versions stored before keep their whole payload.
ALTER TABLE "config_snapshots" ADD COLUMN     "head" BYTEA,
ADD COLUMN     "piece_digests" BYTEA,
ADD COLUMN     "tail" BYTEA,
ALTER COLUMN "payload" DROP NOT NULL;

CREATE TABLE "config_snapshot_pieces" (
    "digest" BYTEA NOT NULL,
    "bytes" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "config_snapshot_pieces_pkey" PRIMARY KEY ("digest")
);
