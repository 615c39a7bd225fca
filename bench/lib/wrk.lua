-- wrk script of bench/lib/wrk.js: every request a random path of the list in WRK_PATHS (one per line, formatted
-- once at start: choosing one costs a random number and a table lookup), and at the end one JSON line with the
-- summary and exact latency percentiles (wrk records each request's latency in microseconds).
local requests = {}

init = function(args)
  local file = assert(io.open(os.getenv("WRK_PATHS"), "r"))
  for path in file:lines() do
    if #path > 0 then requests[#requests + 1] = wrk.format("GET", path) end
  end
  file:close()
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
end

request = function()
  return requests[math.random(#requests)]
end

-- A paced run (WRK_DELAY_MS set: connections x 1000 / target rate): each connection waits that long before each
-- request, so the offered rate stays near the target while the server keeps up.
local pause = tonumber(os.getenv("WRK_DELAY_MS") or "")
if pause then
  delay = function()
    return pause
  end
end

done = function(summary, latency, _requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"mean_us":%f,"stdev_us":%f,"max_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
