-- wrk script of ServeCheckBenchmarkTest: POST a check (/v1/serve/check) or an ad request (/v1/serve/ad)
-- for a random device of the loaded set.
-- Its one argument is a file the benchmark writes, one value a line:
--   the number of loaded devices (ids bench-device-0 .. N-1), the adserver key,
--   the body before the device id, the body after it.
-- done() prints one machine-readable line (microseconds) that the benchmark parses.

local threads = {}
local counter = 0

function setup(thread)
   counter = counter + 1
   thread:set("id", counter)
   table.insert(threads, thread)
end

local devices, before, after, headers

function init(args)
   local f = assert(io.open(args[1], "r"))
   devices = tonumber(f:read("*l"))
   local key = f:read("*l")
   before = f:read("*l")
   after = f:read("*l")
   f:close()
   headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
   math.randomseed(os.time() * 7919 + id)
end

function request()
   local body = before .. "bench-device-" .. math.random(0, devices - 1) .. after
   return wrk.format("POST", nil, headers, body)
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format("WRK-RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d max_us=%d non2xx=%d "
         .. "connect=%d read=%d write=%d timeout=%d\n",
         summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
         e.status, e.connect, e.read, e.write, e.timeout))
end
