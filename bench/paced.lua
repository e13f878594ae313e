-- wrk script of `npm run bench:edge`: a load below saturation, to measure the latency a
-- proxy adds rather than its queue. Each connection sends a request, waits for the answer,
-- then pauses a random 0.5-1.5 x PAUSE_MS. Prints one JSON line; latencies in microseconds.
local pause_ms = tonumber(os.getenv("PAUSE_MS") or "10")
wrk.headers["Host"] = os.getenv("HOST_HEADER")

function delay()
  return math.floor(pause_ms * (0.5 + math.random()))
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%d,"failed":%d,"p50":%d,"p99":%d}\n',
    summary.requests, summary.duration, errors.status + errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
