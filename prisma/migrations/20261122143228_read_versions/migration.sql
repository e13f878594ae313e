-- CreateTable
CREATE TABLE "read_versions" (
    "name" TEXT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "read_versions_pkey" PRIMARY KEY ("name")
);

-- Triggers are not expressible in schema.prisma; they live only here.
-- Statement-level, so a bulk write bumps its read model's counter once.
INSERT INTO "read_versions" ("name") VALUES ('domains'), ('dns_records');

CREATE FUNCTION "bump_read_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "read_versions" SET "version" = "version" + 1 WHERE "name" = TG_ARGV[0];
  RETURN NULL;
END
$$;

CREATE TRIGGER "domains_read_version"
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "domains"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_read_version"('domains');

CREATE TRIGGER "domain_nameservers_read_version"
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "domain_nameservers"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_read_version"('domains');

-- A record list also shows the zone name, so domain writes move it too.
CREATE TRIGGER "dns_records_read_version"
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "dns_records"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_read_version"('dns_records');

CREATE TRIGGER "domains_dns_records_read_version"
  AFTER UPDATE OR DELETE OR TRUNCATE ON "domains"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_read_version"('dns_records');
