-- Snapshot payloads (17 MiB at 10,000 domains) are stored with lz4 where the server has it:
-- an insert took 430-630 ms with the default pglz and 240-320 ms with lz4, at the same size on
-- disk (docs/snapshots.md). A server built without lz4 keeps pglz.
DO $$
BEGIN
  ALTER TABLE "config_snapshots" ALTER COLUMN "payload" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server; snapshot payloads stay compressed with pglz';
END
$$;
