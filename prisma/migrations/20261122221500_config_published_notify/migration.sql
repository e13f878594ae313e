-- Triggers are not expressible in schema.prisma; they live only here.
-- Every change of the active snapshot version is announced on the channel
-- "cdn_config_published" (delivered at commit), so each core keeps the version
-- edges compare against in memory instead of reading it on every config pull.
CREATE FUNCTION "notify_config_published"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."active_version" IS DISTINCT FROM OLD."active_version" THEN
    PERFORM pg_notify('cdn_config_published', NEW."active_version"::text);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "publish_state_config_published"
  AFTER UPDATE OF "active_version" ON "publish_state"
  FOR EACH ROW EXECUTE FUNCTION "notify_config_published"();
