-- Publishers wake as soon as a change to the published config commits (docs/snapshots.md), not at
-- their next tick. The payload is the new change_seq; the publisher reads the row itself.
CREATE FUNCTION "notify_config_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cdn_config_changed', NEW."change_seq"::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER "publish_state_config_changed"
  AFTER INSERT OR UPDATE OF "change_seq" ON "publish_state"
  FOR EACH ROW EXECUTE FUNCTION "notify_config_changed"();
