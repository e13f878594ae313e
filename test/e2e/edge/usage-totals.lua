-- 300 paths in turn (each cached after its first request), so an edge's usage has more alike
-- requests than its telemetry queue has room for events: what it cannot keep is detail, never counts.
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/p/" .. (counter % 300))
end
