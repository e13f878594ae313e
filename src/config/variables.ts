// Every environment variable the service reads, with its type, default and
// meaning. `loadConfig` parses from this table and docs/configuration.md is
// checked against it by a test, so the three cannot drift apart.

export type Profile = 'development' | 'production';

type Base = { env: string; description: string };
export type IntVariable = Base & { kind: 'int'; min: number; max: number; default: number | { development: number; production: number } };
export type BoolVariable = Base & { kind: 'bool'; default: boolean };
export type StringVariable = Base & { kind: 'string'; default?: string; secret?: boolean };
export type EnumVariable = Base & { kind: 'enum'; values: readonly string[]; default: string };
export type Variable = IntVariable | BoolVariable | StringVariable | EnumVariable;

const DAY = 86400;
const MAX_PORT = 65535;
const BIG = 2 ** 31 - 1;

export const VARIABLES = {
  env: { env: 'CDN_ENV', kind: 'enum', values: ['development', 'production'], default: 'development', description: 'Profile that picks the "dev" or "production start" defaults of the limits below.' },
  databaseUrl: { env: 'DATABASE_URL', kind: 'string', secret: true, description: 'PostgreSQL connection string. When unset, an embedded PostgreSQL is started under CDN_DATA_DIR.' },
  dataDir: { env: 'CDN_DATA_DIR', kind: 'string', default: './.data', description: 'Folder for local state: the embedded PostgreSQL cluster (postgres/) and, later, edge caches.' },
  bind: { env: 'CDN_BIND', kind: 'string', default: '127.0.0.1', description: 'Address every listener binds to. Use 0.0.0.0 to accept remote connections.' },
  corePort: { env: 'CDN_CORE_PORT', kind: 'int', min: 0, max: MAX_PORT, default: 8080, description: 'Port of the core REST API (0 picks a free port).' },
  edgeHttpPort: { env: 'CDN_EDGE_HTTP_PORT', kind: 'int', min: 0, max: MAX_PORT, default: 8081, description: 'Plain HTTP port of the edge proxy.' },
  edgeHttpsPort: { env: 'CDN_EDGE_HTTPS_PORT', kind: 'int', min: 0, max: MAX_PORT, default: 8443, description: 'TLS port of the edge proxy.' },
  logLevel: { env: 'CDN_LOG_LEVEL', kind: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info', description: 'Minimum level of the structured (pino) log lines written to stdout.' },
  autoMigrate: { env: 'CDN_AUTO_MIGRATE', kind: 'bool', default: true, description: 'Apply pending migrations at start. Production can set false and run `cdn migrate` after a backup.' },
  apiToken: { env: 'CDN_API_TOKEN', kind: 'string', secret: true, description: 'Bearer token accepted on every control-plane endpoint. When unset, control-plane endpoints need no bearer.' },
  apiMaxBodyBytes: { env: 'CDN_API_MAX_BODY_BYTES', kind: 'int', min: 1024, max: 100 * 1024 * 1024, default: 1048576, description: 'Largest accepted control-plane request body; larger bodies get 413.' },
  apiTrustedProxies: { env: 'CDN_API_TRUSTED_PROXIES', kind: 'string', default: '', description: 'Comma-separated addresses or CIDRs (or loopback) of reverse proxies in front of the core whose X-Forwarded-For names the client (login throttling). Empty: the connecting address is the client.' },
  adminSessionTtlSeconds: { env: 'CDN_ADMIN_SESSION_TTL_SECONDS', kind: 'int', min: 60, max: 30 * DAY, default: 43200, description: 'Lifetime of an admin session token returned by POST /api/v1/admin/login.' },
  bootstrapAdminUser: { env: 'CDN_BOOTSTRAP_ADMIN_USER', kind: 'bool', default: false, description: 'When true (1), create the admin named by CDN_BOOTSTRAP_ADMIN_USERNAME at start if it does not exist. Disable in production.' },
  bootstrapAdminUsername: { env: 'CDN_BOOTSTRAP_ADMIN_USERNAME', kind: 'string', description: 'Username of the bootstrap admin.' },
  bootstrapAdminPassword: { env: 'CDN_BOOTSTRAP_ADMIN_PASSWORD', kind: 'string', secret: true, description: 'Password of the bootstrap admin (at least 8 characters).' },
  bootstrapEdgeToken: { env: 'CDN_BOOTSTRAP_EDGE_TOKEN', kind: 'string', secret: true, description: 'Edge token registered at start for local edges; set to 0 once production edge tokens exist.' },
  defaultNameservers: { env: 'CDN_DEFAULT_NAMESERVERS', kind: 'string', default: 'ns1.cdn.localhost,ns2.cdn.localhost', description: 'Platform nameservers a new domain is expected to delegate to, until the `nameservers` settings group overrides them.' },
  powerdnsApiUrl: { env: 'CDN_POWERDNS_API_URL', kind: 'string', default: '', description: 'Base URL of the PowerDNS Authoritative HTTP API (e.g. http://127.0.0.1:8081). Empty: DNS publishing is off, and readiness and the overview say so.' },
  powerdnsApiKey: { env: 'CDN_POWERDNS_API_KEY', kind: 'string', secret: true, description: 'X-API-Key of the PowerDNS API (its api-key setting).' },
  powerdnsServerId: { env: 'CDN_POWERDNS_SERVER_ID', kind: 'string', default: 'localhost', description: 'PowerDNS server id in API paths (/api/v1/servers/<id>).' },
  powerdnsTimeoutMs: { env: 'CDN_POWERDNS_TIMEOUT_MS', kind: 'int', min: 100, max: 120000, default: 5000, description: 'Timeout of one request to the PowerDNS API.' },
  powerdnsMaxAttempts: { env: 'CDN_POWERDNS_MAX_ATTEMPTS', kind: 'int', min: 1, max: 20, default: 4, description: 'Attempts of one PowerDNS API call when it fails to connect or answers 429 or 5xx (exponential backoff with jitter between them); a 4xx is never retried.' },
  localDnsPort: { env: 'CDN_LOCAL_DNS_PORT', kind: 'int', min: 1, max: MAX_PORT, default: 5300, description: 'DNS port (UDP and TCP) of the PowerDNS server `cdn local` starts when pdns_server is installed and CDN_POWERDNS_API_URL is unset.' },
  localPowerdnsApiPort: { env: 'CDN_LOCAL_POWERDNS_API_PORT', kind: 'int', min: 1, max: MAX_PORT, default: 8281, description: 'HTTP API port of that local PowerDNS server.' },
  nameserverResolvers: { env: 'CDN_NAMESERVER_RESOLVERS', kind: 'string', default: '', description: 'Comma-separated resolver addresses (ip or ip:port) used to observe delegation; empty uses the system resolvers.' },
  nameserverLookupTimeoutMs: { env: 'CDN_NAMESERVER_LOOKUP_TIMEOUT_MS', kind: 'int', min: 100, max: 60000, default: 3000, description: 'Timeout of one nameserver delegation lookup.' },
  originCheckTimeoutMs: { env: 'CDN_ORIGIN_CHECK_TIMEOUT_MS', kind: 'int', min: 100, max: 60000, default: 5000, description: 'Timeout of a manual origin check (TCP connect and HTTP request each).' },
  gitopsRepo: { env: 'CDN_GITOPS_REPO', kind: 'string', description: 'Desired-state repository (URL or local path) the core reconciles itself; unset runs no controller in the core.' },
  gitopsBranch: { env: 'CDN_GITOPS_BRANCH', kind: 'string', default: 'main', description: 'Branch of CDN_GITOPS_REPO to follow.' },
  gitopsPath: { env: 'CDN_GITOPS_PATH', kind: 'string', default: '.', description: 'Sub-directory of the repository that holds the desired state.' },
  gitopsIntervalSeconds: { env: 'CDN_GITOPS_INTERVAL_SECONDS', kind: 'int', min: 1, max: DAY, default: 15, description: 'How often the controller fetches and reconciles without a webhook.' },
  gitopsWebhookSecret: { env: 'CDN_GITOPS_WEBHOOK_SECRET', kind: 'string', secret: true, description: 'Secret of POST /api/v1/gitops/webhook (GitHub/Gitea X-Hub-Signature-256 HMAC, or GitLab X-Gitlab-Token). Unset refuses webhooks.' },
  storeFullClientIp: { env: 'CDN_STORE_FULL_CLIENT_IP', kind: 'bool', default: false, description: 'Store full client IPs in usage and security events instead of their keyed hash.' },
  clientIpHashKey: { env: 'CDN_CLIENT_IP_HASH_KEY', kind: 'string', secret: true, description: 'Key (at least 32 characters) of the HMAC-SHA-256 that stored client IPs are hashed with. Unset: a random key the installation makes once and keeps in its database.' },
  sslSecretKey: { env: 'CDN_SSL_SECRET_KEY', kind: 'string', secret: true, description: 'Key that encrypts stored SSL private keys.' },
  edgeClearanceSecret: { env: 'CDN_EDGE_CLEARANCE_SECRET', kind: 'string', secret: true, description: 'Shared secret that signs edge challenge and clearance cookies; identical on every edge.' },
  edgeChallengeDifficulty: { env: 'CDN_EDGE_CHALLENGE_DIFFICULTY', kind: 'int', min: 1, max: 6, default: 3, description: 'Default challenge level: 1 is a browser check without proof of work, 2-6 need increasing SHA-256 proof of work.' },
  edgeSignatureMaxSkewSeconds: { env: 'CDN_EDGE_SIGNATURE_MAX_SKEW_SECONDS', kind: 'int', min: 1, max: 3600, default: 300, description: 'Accepted clock skew of a signed edge request (also the nonce replay window, and how far in the future a collected event or observation may be stamped).' },
  edgeHeartbeatFreshSeconds: { env: 'CDN_EDGE_HEARTBEAT_FRESH_SECONDS', kind: 'int', min: 1, max: DAY, default: 30, description: 'An edge is in the shared pool only if its last successful heartbeat is this recent.' },
  edgeConfigMaxBytes: { env: 'CDN_EDGE_CONFIG_MAX_BYTES', kind: 'int', min: 1024, max: BIG, default: { development: 1048576, production: 5242880 }, description: 'Largest config snapshot the publisher will store (a bigger one fails the publish and keeps the old one) and an edge will accept (a bigger one is refused and counted as a reload failure).' },
  edgeConfigRefreshSeconds: { env: 'CDN_EDGE_CONFIG_REFRESH_SECONDS', kind: 'int', min: 1, max: 3600, default: 1, description: 'How often an edge asks for a newer config snapshot.' },
  edgeTelemetryBatchSize: { env: 'CDN_EDGE_TELEMETRY_BATCH_SIZE', kind: 'int', min: 1, max: 10000, default: { development: 50, production: 500 }, description: 'Events per telemetry push from an edge.' },
  edgeTelemetryFlushSeconds: { env: 'CDN_EDGE_TELEMETRY_FLUSH_SECONDS', kind: 'int', min: 1, max: 3600, default: 1, description: 'Interval between telemetry pushes.' },
  edgeTelemetryQueueMaxItems: { env: 'CDN_EDGE_TELEMETRY_QUEUE_MAX_ITEMS', kind: 'int', min: 1, max: BIG, default: { development: 5000, production: 100000 }, description: 'Bound of each edge telemetry queue in events; drops are counted.' },
  edgeTelemetryQueueMaxBytes: { env: 'CDN_EDGE_TELEMETRY_QUEUE_MAX_BYTES', kind: 'int', min: 1024, max: BIG, default: { development: 524288, production: 16777216 }, description: 'Bound of each edge telemetry queue in bytes.' },
  edgeClientMaxBodyBytes: { env: 'CDN_EDGE_CLIENT_MAX_BODY_BYTES', kind: 'int', min: 1024, max: BIG, default: { development: 10485760, production: 104857600 }, description: 'Largest client request body the edge proxies (10m dev, 100m production).' },
  edgeProxyConnectTimeoutSeconds: { env: 'CDN_EDGE_PROXY_CONNECT_TIMEOUT_SECONDS', kind: 'int', min: 1, max: 600, default: { development: 3, production: 5 }, description: 'Edge connect timeout to an origin.' },
  edgeProxyReadTimeoutSeconds: { env: 'CDN_EDGE_PROXY_READ_TIMEOUT_SECONDS', kind: 'int', min: 1, max: 3600, default: { development: 30, production: 60 }, description: 'Edge read and send timeout to an origin.' },
  edgeCoreUrl: { env: 'CDN_EDGE_CORE_URL', kind: 'string', default: 'http://127.0.0.1:8080', description: 'Base URL of the core an edge registers with, pulls config from and reports to.' },
  edgeId: { env: 'CDN_EDGE_ID', kind: 'string', description: 'This edge\'s id (1-128 of A-Z a-z 0-9 . _ -). Unset: the machine\'s hostname, with other characters replaced by -.' },
  edgeToken: { env: 'CDN_EDGE_TOKEN', kind: 'string', secret: true, description: 'Edge token (`cdn edge-token create`) the edge signs its requests to the core with. Required by `cdn edge`.' },
  edgeDataDir: { env: 'CDN_EDGE_DATA_DIR', kind: 'string', default: './.data/edge', description: 'Folder of the edge\'s local state: the last-known-good snapshot, the shared disk cache, applied purges.' },
  edgeWorkers: { env: 'CDN_EDGE_WORKERS', kind: 'int', min: 0, max: 256, default: 0, description: 'Worker processes serving customer traffic (they share the listeners); 0 starts one per CPU.' },
  edgeRegion: { env: 'CDN_EDGE_REGION', kind: 'string', default: '', description: 'Region this edge reports at registration (free text, e.g. eu-central).' },
  edgePublicIp: { env: 'CDN_EDGE_PUBLIC_IP', kind: 'string', default: '', description: 'Public address this edge reports at registration; proxied DNS records publish it while the edge is in the pool.' },
  edgeHeartbeatSeconds: { env: 'CDN_EDGE_HEARTBEAT_SECONDS', kind: 'int', min: 1, max: 3600, default: 5, description: 'Interval of the edge\'s heartbeat (keep it well under CDN_EDGE_HEARTBEAT_FRESH_SECONDS).' },
  edgeCacheMemoryBytes: { env: 'CDN_EDGE_CACHE_MEMORY_BYTES', kind: 'int', min: 0, max: 2 ** 40, default: { development: 67108864, production: 268435456 }, description: 'Size of the in-memory cache tier of each edge worker (least recently used objects leave first); 0 turns the tier off.' },
  edgeCacheDiskBytes: { env: 'CDN_EDGE_CACHE_DISK_BYTES', kind: 'int', min: 0, max: 2 ** 50, default: { development: 1073741824, production: 10737418240 }, description: 'Size of the cache tier all workers share, as files under CDN_EDGE_DATA_DIR/cache; 0 turns it off.' },
  edgeCacheMaxObjectBytes: { env: 'CDN_EDGE_CACHE_MAX_OBJECT_BYTES', kind: 'int', min: 1024, max: 2 ** 40, default: 104857600, description: 'Largest response the edge stores; larger ones are passed through uncached. Objects above 1/16 of the memory tier go to the disk tier only.' },
  edgeGeoipFile: { env: 'CDN_EDGE_GEOIP_FILE', kind: 'string', default: '', description: 'Country database (MaxMind DB format) the edge resolves client addresses with; reloaded when the file changes. Empty: the CC0 database of the @ip-location-db/geo-whois-asn-country-mmdb package.' },
  edgeCountryHeaders: { env: 'CDN_EDGE_COUNTRY_HEADERS', kind: 'string', default: 'X-CDN-Country', description: 'Comma-separated request headers carrying the client country set by a trusted upstream, first present wins (e.g. X-CDN-Country,CF-IPCountry).' },
  edgeTrustedProxies: { env: 'CDN_EDGE_TRUSTED_PROXIES', kind: 'string', default: '', description: 'Comma-separated addresses or CIDRs (or loopback) of upstream proxies whose country headers and X-Forwarded-For the edge believes. Empty: none; the connecting address is the client.' },
  edgeClearanceTtlSeconds: { env: 'CDN_EDGE_CLEARANCE_TTL_SECONDS', kind: 'int', min: 60, max: 7 * DAY, default: 1800, description: 'Lifetime of the clearance cookie a passed challenge sets.' },
  edgeProbeIntervalSeconds: { env: 'CDN_EDGE_PROBE_INTERVAL_SECONDS', kind: 'int', min: 1, max: 3600, default: 10, description: 'Interval of the active health probes of monitored origins.' },
  publishEnabled: { env: 'CDN_PUBLISH_ENABLED', kind: 'bool', default: true, description: 'Run the background snapshot publisher in this core (one publisher at a time across replicas).' },
  configSnapshotHistoryEnabled: { env: 'CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED', kind: 'bool', default: false, description: 'Enables snapshot payload, diff and rollback endpoints.' },
  configSnapshotKeepLast: { env: 'CDN_CONFIG_SNAPSHOT_KEEP_LAST', kind: 'int', min: 0, max: 100000, default: 2, description: 'Snapshots kept besides the active version.' },
  configSnapshotPruneBatchSize: { env: 'CDN_CONFIG_SNAPSHOT_PRUNE_BATCH_SIZE', kind: 'int', min: 1, max: 1000000, default: 5000, description: 'Rows deleted per snapshot prune statement.' },
  analyticsRetentionDays: { env: 'CDN_ANALYTICS_RETENTION_DAYS', kind: 'int', min: 1, max: 3650, default: 30, description: 'Days raw usage events, minute aggregates and origin health observations are kept (hour and day aggregates are kept for ever); older events and observations are refused at ingest.' },
  securityEventRetentionDays: { env: 'CDN_SECURITY_EVENT_RETENTION_DAYS', kind: 'int', min: 1, max: 3650, default: 90, description: 'Days security events are kept.' },
  dnsEventRetentionDays: { env: 'CDN_DNS_EVENT_RETENTION_DAYS', kind: 'int', min: 1, max: 3650, default: 30, description: 'Days successful DNS sync events are kept; failed ones are kept.' },
  sslJobRetentionDays: { env: 'CDN_SSL_JOB_RETENTION_DAYS', kind: 'int', min: 1, max: 3650, default: 180, description: 'Days terminal SSL jobs are kept; active jobs are never pruned.' },
  ingestKeyRetentionDays: { env: 'CDN_INGEST_KEY_RETENTION_DAYS', kind: 'int', min: 1, max: 3650, default: 7, description: 'Days ingest idempotency keys are remembered; the housekeeping forgets older ones every minute, whether or not the retention scheduler runs.' },
  retentionPruneEnabled: { env: 'CDN_RETENTION_PRUNE_ENABLED', kind: 'bool', default: false, description: 'Runs the retention scheduler: old telemetry, successful DNS sync events and terminal SSL jobs are pruned after their *_RETENTION_DAYS (docs/control-plane.md, Retention).' },
  retentionIntervalSeconds: { env: 'CDN_RETENTION_INTERVAL_SECONDS', kind: 'int', min: 60, max: 30 * DAY, default: 86400, description: 'Time between two retention runs, counted from the start of the last run of any core.' },
  retentionBatchSize: { env: 'CDN_RETENTION_BATCH_SIZE', kind: 'int', min: 1, max: 1000000, default: 5000, description: 'Rows deleted per retention statement (also for the housekeeping of ingest keys).' },
  syncIntervalSeconds: { env: 'CDN_SYNC_INTERVAL_SECONDS', kind: 'int', min: 1, max: DAY, default: 30, description: 'Interval of the DNS sync loop.' },
  nameserverCheckIntervalSeconds: { env: 'CDN_NAMESERVER_CHECK_INTERVAL_SECONDS', kind: 'int', min: 60, max: 30 * DAY, default: 86400, description: 'Interval of the scheduled nameserver delegation check.' },
  sslSchedulerIntervalSeconds: { env: 'CDN_SSL_SCHEDULER_INTERVAL_SECONDS', kind: 'int', min: 1, max: DAY, default: 30, description: 'Interval of the SSL job scheduler.' },
} as const satisfies Record<string, Variable>;
