-- wrk script of ServeCheckBenchmarkTest: POST a check (/v1/serve/check) or an ad request (/v1/serve/ad)
-- for a random device of the loaded set.
-- Its first argument is a file the benchmark writes, one value a line:
--   the number of loaded devices (ids bench-device-0 .. N-1), the adserver key,
--   the body before the device id, the body after it;
-- its second, wrk's -c (the connections in all), which undoing wrk's latency correction needs.
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
   connections = tonumber(args[2]) -- read by done() through thread:get
   headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
   math.randomseed(os.time() * 7919 + id)
end

function request()
   local body = before .. "bench-device-" .. math.random(0, devices - 1) .. after
   return wrk.format("POST", nil, headers, body)
end

-- wrk 4 "corrects" its latency histogram for coordinated omission before done() sees it: for each
-- recorded latency L >= 2e, where e = duration / (requests / connections), it adds the samples
-- L - e, L - 2e, ... above e (src/stats.c, stats_correct). A closed-loop floor records no such
-- samples, so done() also gives the percentiles as recorded, undoing the correction exactly: the
-- largest value is all recorded, and walking down, what a value holds beyond the synthetic samples
-- of the values above it is recorded too.
local function recorded(summary, latency, connections)
   local n = #latency
   local values, counts = {}, {}
   for i = 1, n do
      values[i], counts[i] = latency(i)
   end
   local per = math.floor(summary.requests / connections)
   if per == 0 then return nil end
   local e = math.floor(summary.duration / per)
   local synthetic = {}
   local rec, total = {}, 0
   for i = n, 1, -1 do
      local v = values[i]
      local c = counts[i] - (synthetic[v] or 0)
      rec[i] = c
      total = total + c
      if c > 0 and v >= 2 * e then
         local m = v - e
         while m > e do
            synthetic[m] = (synthetic[m] or 0) + c
            m = m - e
         end
      end
   end
   local function pct(p)
      local want, seen = math.ceil(total * p / 100), 0
      for i = 1, n do
         seen = seen + rec[i]
         if seen >= want then return values[i] end
      end
      return values[n]
   end
   return total, pct(50), pct(99)
end

-- recorded=N is how many samples the undoing found: wrk's request count when it is right.
function done(summary, latency, requests)
   local e = summary.errors
   local connections = threads[1] and threads[1]:get("connections")
   local rec_n, rec_p50, rec_p99
   if connections then rec_n, rec_p50, rec_p99 = recorded(summary, latency, connections) end
   io.write(string.format("WRK-RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d max_us=%d non2xx=%d "
         .. "connect=%d read=%d write=%d timeout=%d recorded=%d recorded_p50_us=%d recorded_p99_us=%d\n",
         summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
         e.status, e.connect, e.read, e.write, e.timeout, rec_n or 0, rec_p50 or 0, rec_p99 or 0))
end
