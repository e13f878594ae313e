-- wrk script of `npm run bench:ingest`: each connection is one edge polling the
-- config. It sends a signed pull, waits for the answer, then pauses a random
-- 0.5-1.5 x POLL_MS (edges poll on their own clocks, not in lockstep; 0 = no pause).
-- wrk cannot compute HMACs, so the bench signs the requests beforehand: one per
-- line of SIGNED_FILE, "edge_id timestamp nonce signature", each used once (run
-- wrk with one thread; a second would replay the first one's nonces).
local token = os.getenv("EDGE_TOKEN")
local path = os.getenv("PULL_PATH")
local poll_ms = tonumber(os.getenv("POLL_MS") or "0")
local signed = {}
local next_request = 1

function init(args)
  for line in io.lines(os.getenv("SIGNED_FILE")) do
    local edge, timestamp, nonce, signature = line:match("^(%S+) (%S+) (%S+) (%S+)$")
    signed[#signed + 1] = wrk.format("GET", path, {
      ["Authorization"] = "Bearer " .. token,
      ["X-CDN-Edge-Id"] = edge,
      ["X-CDN-Timestamp"] = timestamp,
      ["X-CDN-Nonce"] = nonce,
      ["X-CDN-Signature"] = signature,
    })
  end
end

function request()
  local next = signed[next_request]
  next_request = next_request % #signed + 1
  return next
end

function delay()
  if poll_ms == 0 then return 0 end
  return math.floor(poll_ms * (0.5 + math.random()))
end

-- One JSON line for the bench: counts, and latencies in microseconds.
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%d,"http_errors":%d,"socket_errors":%d,"p50":%d,"p99":%d,"p999":%d,"max":%d}\n',
    summary.requests, summary.duration, errors.status, errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
