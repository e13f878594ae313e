-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "DomainStatus" AS ENUM ('pending_nameserver', 'active', 'disabled');

-- CreateEnum
CREATE TYPE "RoutingMode" AS ENUM ('geo', 'anycast', 'dns_only');

-- CreateEnum
CREATE TYPE "NameserverKind" AS ENUM ('expected', 'observed');

-- CreateEnum
CREATE TYPE "GeoScope" AS ENUM ('country', 'continent', 'region', 'default');

-- CreateEnum
CREATE TYPE "OriginScheme" AS ENUM ('http', 'https');

-- CreateEnum
CREATE TYPE "OriginRole" AS ENUM ('primary', 'backup');

-- CreateEnum
CREATE TYPE "PurgeScope" AS ENUM ('url', 'prefix', 'domain', 'everything');

-- CreateEnum
CREATE TYPE "PurgeStatus" AS ENUM ('queued', 'in_progress', 'completed', 'failed');

-- CreateEnum
CREATE TYPE "UsageBucket" AS ENUM ('minute', 'hour', 'day');

-- CreateTable
CREATE TABLE "admin_users" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "username" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "last_login_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "admin_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "admin_sessions" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "admin_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "domains" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "user_id" TEXT,
    "name" TEXT NOT NULL,
    "display_name" TEXT,
    "domain" TEXT NOT NULL,
    "zone_name" TEXT NOT NULL,
    "status" "DomainStatus" NOT NULL DEFAULT 'pending_nameserver',
    "origin_shield_header_name" TEXT,
    "origin_shield_secret" TEXT,
    "routing_mode" "RoutingMode" NOT NULL DEFAULT 'geo',
    "geo_health_port" INTEGER,
    "anycast_ipv4" TEXT,
    "anycast_ipv6" TEXT,
    "waf_managed_signatures" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "activated_at" TIMESTAMPTZ(3),
    "activation_override" BOOLEAN NOT NULL DEFAULT false,
    "nameservers_checked_at" TIMESTAMPTZ(3),
    "nameservers_verified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "domains_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "domain_nameservers" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "kind" "NameserverKind" NOT NULL,
    "hostname" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "domain_nameservers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dns_records" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "ttl" INTEGER NOT NULL DEFAULT 300,
    "proxied" BOOLEAN NOT NULL DEFAULT false,
    "routing_policy" TEXT NOT NULL DEFAULT 'simple',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "comment" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dns_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "geo_routes" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "record_id" TEXT NOT NULL,
    "scope" "GeoScope" NOT NULL,
    "code" TEXT,
    "target" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "geo_routes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dns_zone_states" (
    "domain_id" TEXT NOT NULL,
    "zone_name" TEXT NOT NULL,
    "desired_hash" TEXT,
    "published_hash" TEXT,
    "serial" BIGINT NOT NULL DEFAULT 0,
    "last_synced_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dns_zone_states_pkey" PRIMARY KEY ("domain_id")
);

-- CreateTable
CREATE TABLE "dns_sync_events" (
    "id" BIGSERIAL NOT NULL,
    "domain_id" TEXT,
    "zone_name" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "duration_ms" INTEGER,
    "changes" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dns_sync_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "origins" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "scheme" "OriginScheme" NOT NULL DEFAULT 'https',
    "port" INTEGER NOT NULL,
    "role" "OriginRole" NOT NULL DEFAULT 'primary',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "health_status" TEXT NOT NULL DEFAULT 'unknown',
    "health_changed_at" TIMESTAMPTZ(3),
    "host_header" TEXT,
    "health_check_path" TEXT NOT NULL DEFAULT '/',
    "weight" INTEGER NOT NULL DEFAULT 100,
    "drained" BOOLEAN NOT NULL DEFAULT false,
    "monitored" BOOLEAN NOT NULL DEFAULT false,
    "max_retries" INTEGER NOT NULL DEFAULT 1,
    "retry_non_idempotent" BOOLEAN NOT NULL DEFAULT false,
    "retry_budget_percent" INTEGER NOT NULL DEFAULT 20,
    "retry_budget_min_per_second" INTEGER NOT NULL DEFAULT 5,
    "circuit_breaker_enabled" BOOLEAN NOT NULL DEFAULT true,
    "circuit_breaker_failure_threshold" INTEGER NOT NULL DEFAULT 5,
    "circuit_breaker_window_seconds" INTEGER NOT NULL DEFAULT 30,
    "circuit_breaker_cooldown_seconds" INTEGER NOT NULL DEFAULT 30,
    "max_connections" INTEGER,
    "max_pending_requests" INTEGER,
    "connect_timeout_ms" INTEGER NOT NULL DEFAULT 3000,
    "read_timeout_ms" INTEGER NOT NULL DEFAULT 30000,
    "shield" BOOLEAN NOT NULL DEFAULT false,
    "shield_region" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "origins_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "origin_health_observations" (
    "id" BIGSERIAL NOT NULL,
    "domain_id" TEXT NOT NULL,
    "origin_id" TEXT NOT NULL,
    "edge_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "failure_kind" TEXT,
    "http_status" INTEGER,
    "latency_ms" INTEGER,
    "jitter_ms" INTEGER,
    "detail" TEXT,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "origin_health_observations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "redirect_rules" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 1000,
    "match" JSONB NOT NULL DEFAULT '{}',
    "target" TEXT NOT NULL,
    "status_code" INTEGER NOT NULL DEFAULT 301,
    "preserve_query" BOOLEAN NOT NULL DEFAULT true,
    "preserve_path" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "redirect_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_limit_rules" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 1000,
    "match" JSONB NOT NULL DEFAULT '{}',
    "requests" INTEGER NOT NULL,
    "period_seconds" INTEGER NOT NULL,
    "key" TEXT NOT NULL DEFAULT 'ip',
    "key_header" TEXT,
    "action" TEXT NOT NULL DEFAULT 'block',
    "block_seconds" INTEGER NOT NULL DEFAULT 60,
    "challenge_difficulty" INTEGER,
    "legacy" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rate_limit_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "waf_rules" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 1000,
    "match" JSONB NOT NULL DEFAULT '{}',
    "action" TEXT NOT NULL DEFAULT 'block',
    "challenge_difficulty" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "waf_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "header_rules" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 1000,
    "match" JSONB NOT NULL DEFAULT '{}',
    "phase" TEXT NOT NULL DEFAULT 'response',
    "operation" TEXT NOT NULL DEFAULT 'set',
    "header_name" TEXT NOT NULL,
    "value" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "header_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ip_rules" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 1000,
    "match" JSONB NOT NULL DEFAULT '{}',
    "cidr" TEXT NOT NULL,
    "action" TEXT NOT NULL DEFAULT 'block',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ip_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cache_rules" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 1000,
    "match" JSONB NOT NULL DEFAULT '{}',
    "action" TEXT NOT NULL DEFAULT 'cache',
    "edge_ttl_seconds" INTEGER,
    "browser_ttl_seconds" INTEGER,
    "cache_key" JSONB NOT NULL DEFAULT '{}',
    "stale_while_revalidate_seconds" INTEGER,
    "stale_if_error_seconds" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cache_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "page_rules" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 1000,
    "match" JSONB NOT NULL DEFAULT '{}',
    "url_pattern" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "page_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cache_settings" (
    "domain_id" TEXT NOT NULL,
    "caching_enabled" BOOLEAN NOT NULL DEFAULT true,
    "default_edge_ttl_seconds" INTEGER NOT NULL DEFAULT 3600,
    "browser_ttl_seconds" INTEGER NOT NULL DEFAULT 14400,
    "respect_origin_cache_control" BOOLEAN NOT NULL DEFAULT true,
    "query_string_mode" TEXT NOT NULL DEFAULT 'include',
    "stale_while_revalidate_seconds" INTEGER NOT NULL DEFAULT 0,
    "stale_if_error_seconds" INTEGER NOT NULL DEFAULT 0,
    "development_mode" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cache_settings_pkey" PRIMARY KEY ("domain_id")
);

-- CreateTable
CREATE TABLE "purge_requests" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "scope" "PurgeScope" NOT NULL,
    "value" TEXT,
    "status" "PurgeStatus" NOT NULL DEFAULT 'queued',
    "requested_by" TEXT,
    "config_version" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "purge_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "purge_acks" (
    "purge_id" TEXT NOT NULL,
    "edge_id" TEXT NOT NULL,
    "acked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "purge_acks_pkey" PRIMARY KEY ("purge_id","edge_id")
);

-- CreateTable
CREATE TABLE "ssl_settings" (
    "domain_id" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'full',
    "automatic" BOOLEAN NOT NULL DEFAULT true,
    "always_https" BOOLEAN NOT NULL DEFAULT false,
    "min_tls_version" TEXT NOT NULL DEFAULT '1.2',
    "hsts_enabled" BOOLEAN NOT NULL DEFAULT false,
    "hsts_max_age" INTEGER NOT NULL DEFAULT 31536000,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ssl_settings_pkey" PRIMARY KEY ("domain_id")
);

-- CreateTable
CREATE TABLE "ssl_certificates" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "hostnames" TEXT[],
    "issuer" TEXT,
    "serial_number" TEXT,
    "fingerprint_sha256" TEXT,
    "not_before" TIMESTAMPTZ(3),
    "not_after" TIMESTAMPTZ(3),
    "certificate_pem" TEXT,
    "chain_pem" TEXT,
    "private_key_encrypted" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ssl_certificates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ssl_jobs" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "domain_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "hostnames" TEXT[],
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "run_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_at" TIMESTAMPTZ(3),
    "locked_by" TEXT,
    "certificate_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "ssl_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "acme_challenges" (
    "token" TEXT NOT NULL,
    "domain_id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "key_authorization" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "acme_challenges_pkey" PRIMARY KEY ("token")
);

-- CreateTable
CREATE TABLE "settings" (
    "group" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_by" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settings_pkey" PRIMARY KEY ("group","key")
);

-- CreateTable
CREATE TABLE "edge_nodes" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "edge_id" TEXT NOT NULL,
    "hostname" TEXT,
    "public_ip" TEXT,
    "region" TEXT,
    "country" TEXT,
    "version" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "health_status" TEXT NOT NULL DEFAULT 'unknown',
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "config_version" INTEGER,
    "token_id" TEXT,
    "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_heartbeat_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "edge_nodes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "edge_tokens" (
    "id" TEXT NOT NULL DEFAULT (gen_random_uuid())::text,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "token_prefix" TEXT NOT NULL,
    "edge_id" TEXT,
    "bootstrap" BOOLEAN NOT NULL DEFAULT false,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "edge_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "edge_nonces" (
    "edge_id" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "edge_nonces_pkey" PRIMARY KEY ("edge_id","nonce")
);

-- CreateTable
CREATE TABLE "config_snapshots" (
    "version" INTEGER NOT NULL,
    "checksum" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "payload" BYTEA NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'publish',
    "source_version" INTEGER,
    "domain_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "config_snapshots_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "publish_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "change_seq" BIGINT NOT NULL DEFAULT 0,
    "published_seq" BIGINT NOT NULL DEFAULT 0,
    "dirty_since" TIMESTAMPTZ(3),
    "dirty_reason" TEXT,
    "active_version" INTEGER,
    "last_publish_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "publish_state_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_events" (
    "id" BIGSERIAL NOT NULL,
    "domain_id" TEXT,
    "domain" TEXT NOT NULL,
    "edge_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "bytes" BIGINT NOT NULL,
    "cache_status" TEXT NOT NULL,
    "client_country" TEXT,
    "client_ip" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_aggregates" (
    "bucket" "UsageBucket" NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "domain_id" TEXT NOT NULL,
    "requests" BIGINT NOT NULL DEFAULT 0,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "cached_requests" BIGINT NOT NULL DEFAULT 0,
    "cached_bytes" BIGINT NOT NULL DEFAULT 0,
    "status_2xx" BIGINT NOT NULL DEFAULT 0,
    "status_3xx" BIGINT NOT NULL DEFAULT 0,
    "status_4xx" BIGINT NOT NULL DEFAULT 0,
    "status_5xx" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_aggregates_pkey" PRIMARY KEY ("bucket","domain_id","bucket_start")
);

-- CreateTable
CREATE TABLE "ingest_keys" (
    "key" TEXT NOT NULL,
    "stream" TEXT NOT NULL,
    "edge_id" TEXT NOT NULL,
    "event_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingest_keys_pkey" PRIMARY KEY ("stream","key")
);

-- CreateTable
CREATE TABLE "security_events" (
    "id" BIGSERIAL NOT NULL,
    "domain_id" TEXT,
    "domain" TEXT NOT NULL,
    "edge_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "rule_id" TEXT,
    "method" TEXT,
    "path" TEXT,
    "client_country" TEXT,
    "client_ip" TEXT,
    "user_agent" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "security_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "actor" TEXT NOT NULL,
    "actor_type" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "domain_id" TEXT,
    "request_id" TEXT,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "admin_users_username_key" ON "admin_users"("username");

-- CreateIndex
CREATE UNIQUE INDEX "admin_sessions_token_hash_key" ON "admin_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "admin_sessions_user_id_idx" ON "admin_sessions"("user_id");

-- CreateIndex
CREATE INDEX "admin_sessions_expires_at_idx" ON "admin_sessions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "domains_domain_key" ON "domains"("domain");

-- CreateIndex
CREATE INDEX "domains_status_idx" ON "domains"("status");

-- CreateIndex
CREATE INDEX "domains_created_at_id_idx" ON "domains"("created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "domain_nameservers_domain_id_kind_hostname_key" ON "domain_nameservers"("domain_id", "kind", "hostname");

-- CreateIndex
CREATE INDEX "dns_records_domain_id_name_type_idx" ON "dns_records"("domain_id", "name", "type");

-- CreateIndex
CREATE INDEX "geo_routes_record_id_idx" ON "geo_routes"("record_id");

-- CreateIndex
CREATE INDEX "dns_sync_events_zone_name_created_at_idx" ON "dns_sync_events"("zone_name", "created_at");

-- CreateIndex
CREATE INDEX "dns_sync_events_success_created_at_idx" ON "dns_sync_events"("success", "created_at");

-- CreateIndex
CREATE INDEX "origins_domain_id_idx" ON "origins"("domain_id");

-- CreateIndex
CREATE INDEX "origin_health_observations_origin_id_observed_at_idx" ON "origin_health_observations"("origin_id", "observed_at");

-- CreateIndex
CREATE INDEX "origin_health_observations_observed_at_idx" ON "origin_health_observations"("observed_at");

-- CreateIndex
CREATE INDEX "redirect_rules_domain_id_priority_idx" ON "redirect_rules"("domain_id", "priority");

-- CreateIndex
CREATE INDEX "rate_limit_rules_domain_id_priority_idx" ON "rate_limit_rules"("domain_id", "priority");

-- CreateIndex
CREATE INDEX "waf_rules_domain_id_priority_idx" ON "waf_rules"("domain_id", "priority");

-- CreateIndex
CREATE INDEX "header_rules_domain_id_priority_idx" ON "header_rules"("domain_id", "priority");

-- CreateIndex
CREATE INDEX "ip_rules_domain_id_priority_idx" ON "ip_rules"("domain_id", "priority");

-- CreateIndex
CREATE INDEX "cache_rules_domain_id_priority_idx" ON "cache_rules"("domain_id", "priority");

-- CreateIndex
CREATE INDEX "page_rules_domain_id_priority_idx" ON "page_rules"("domain_id", "priority");

-- CreateIndex
CREATE INDEX "purge_requests_domain_id_created_at_idx" ON "purge_requests"("domain_id", "created_at");

-- CreateIndex
CREATE INDEX "purge_requests_status_idx" ON "purge_requests"("status");

-- CreateIndex
CREATE INDEX "ssl_certificates_domain_id_idx" ON "ssl_certificates"("domain_id");

-- CreateIndex
CREATE INDEX "ssl_certificates_not_after_idx" ON "ssl_certificates"("not_after");

-- CreateIndex
CREATE INDEX "ssl_jobs_status_run_after_idx" ON "ssl_jobs"("status", "run_after");

-- CreateIndex
CREATE INDEX "ssl_jobs_domain_id_idx" ON "ssl_jobs"("domain_id");

-- CreateIndex
CREATE INDEX "acme_challenges_expires_at_idx" ON "acme_challenges"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "edge_nodes_edge_id_key" ON "edge_nodes"("edge_id");

-- CreateIndex
CREATE UNIQUE INDEX "edge_tokens_token_hash_key" ON "edge_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "edge_nonces_expires_at_idx" ON "edge_nonces"("expires_at");

-- CreateIndex
CREATE INDEX "usage_events_domain_id_occurred_at_idx" ON "usage_events"("domain_id", "occurred_at");

-- CreateIndex
CREATE INDEX "usage_events_occurred_at_idx" ON "usage_events"("occurred_at");

-- CreateIndex
CREATE INDEX "usage_aggregates_bucket_bucket_start_idx" ON "usage_aggregates"("bucket", "bucket_start");

-- CreateIndex
CREATE INDEX "ingest_keys_created_at_idx" ON "ingest_keys"("created_at");

-- CreateIndex
CREATE INDEX "security_events_domain_id_occurred_at_idx" ON "security_events"("domain_id", "occurred_at");

-- CreateIndex
CREATE INDEX "security_events_occurred_at_idx" ON "security_events"("occurred_at");

-- CreateIndex
CREATE INDEX "audit_events_created_at_idx" ON "audit_events"("created_at");

-- CreateIndex
CREATE INDEX "audit_events_domain_id_created_at_idx" ON "audit_events"("domain_id", "created_at");

-- AddForeignKey
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "admin_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "domain_nameservers" ADD CONSTRAINT "domain_nameservers_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dns_records" ADD CONSTRAINT "dns_records_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "geo_routes" ADD CONSTRAINT "geo_routes_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "dns_records"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dns_zone_states" ADD CONSTRAINT "dns_zone_states_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "origins" ADD CONSTRAINT "origins_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redirect_rules" ADD CONSTRAINT "redirect_rules_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rate_limit_rules" ADD CONSTRAINT "rate_limit_rules_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "waf_rules" ADD CONSTRAINT "waf_rules_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "header_rules" ADD CONSTRAINT "header_rules_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ip_rules" ADD CONSTRAINT "ip_rules_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cache_rules" ADD CONSTRAINT "cache_rules_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "page_rules" ADD CONSTRAINT "page_rules_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cache_settings" ADD CONSTRAINT "cache_settings_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "purge_requests" ADD CONSTRAINT "purge_requests_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "purge_acks" ADD CONSTRAINT "purge_acks_purge_id_fkey" FOREIGN KEY ("purge_id") REFERENCES "purge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ssl_settings" ADD CONSTRAINT "ssl_settings_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ssl_certificates" ADD CONSTRAINT "ssl_certificates_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ssl_jobs" ADD CONSTRAINT "ssl_jobs_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE CASCADE ON UPDATE CASCADE;

