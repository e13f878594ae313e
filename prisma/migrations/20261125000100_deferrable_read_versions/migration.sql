-- A transaction that sets cdn.read_versions_deferred bumps the read versions itself, once, just
-- before it commits (a batch of writes): its triggers skip the bump, so it does not hold the two
-- counter rows from its first write to its commit, serializing every other writer behind it.
CREATE OR REPLACE FUNCTION "bump_read_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('cdn.read_versions_deferred', true) = 'on' THEN
    RETURN NULL;
  END IF;
  UPDATE "read_versions" SET "version" = "version" + 1 WHERE "name" = TG_ARGV[0];
  RETURN NULL;
END
$$;
