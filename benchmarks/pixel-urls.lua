-- wrk script of PixelVerifyHttpHarness: GET the paths of the file given after "--" in turn. Arguments:
-- file, offset, span: thread t of n starts at offset + t * span / n, so threads and rounds use
-- their own beacons (each a new event) as long as a round sends at most span requests.
local paths = {}
local i = 0
local counter = 0

setup = function(thread)
  thread:set("thread_no", counter)
  counter = counter + 1
  threads = counter
end

init = function(args)
  for line in io.lines(args[1]) do
    paths[#paths + 1] = line
  end
  local span = tonumber(args[3])
  i = (tonumber(args[2]) + thread_no * math.floor(span / 4)) % #paths
end

request = function()
  i = i + 1
  if i > #paths then i = 1 end
  return wrk.format("GET", paths[i])
end
