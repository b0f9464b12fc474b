-- wrk script of `npm run bench`, driven by environment variables:
--   MODE     get (fixed URL) | getid (random id of IDS_FILE) | post (unique bodies) | put (versioned updates)
--   PREFIX   path before the id (getid, put) or the collection path (post)
--   AUTH     Authorization header (optional); API_KEY: x-api-key header (optional)
--   IDS_FILE getid: one id per line; put: "id version" per line, written back to STATE_OUT at the end;
--            post with BODY: one id per line, a random one replaces {{ID}}
--   BODY     post: the body, {{N}} replaced by a unique value (default: a partner)
--   PUT_BODY put: the body, {{V}} replaced by the version, {{N}} by a unique value (default: a
--            partner's description); CONSUME=1: an id is used once (finalize), not given back
--   TAG      makes POST and PUT bodies unique across cases
-- done() prints one line "RESULT {...}" (latencies in microseconds).
local mode = os.getenv("MODE") or "get"
local prefix = os.getenv("PREFIX") or "/"
local tag = os.getenv("TAG") or tostring(os.time())
local body = os.getenv("BODY")
local putBody = os.getenv("PUT_BODY") or '{"version":{{V}},"description":"Changed {{N}}"}'
local consume = os.getenv("CONSUME") == "1"
-- Plain (not pattern) replacement of every `key` in `s`.
local function fill(s, key, value)
  local out, from = {}, 1
  while true do
    local i, j = s:find(key, from, true)
    if not i then break end
    out[#out + 1] = s:sub(from, i - 1) .. value
    from = j + 1
  end
  out[#out + 1] = s:sub(from)
  return table.concat(out)
end
if os.getenv("AUTH") then wrk.headers["authorization"] = os.getenv("AUTH") end
if os.getenv("API_KEY") then wrk.headers["x-api-key"] = os.getenv("API_KEY") end
if mode == "post" or mode == "put" then wrk.headers["content-type"] = "application/json" end

local threads = {}
function setup(thread) table.insert(threads, thread) end

local n = 0
if mode == "getid" then
  local ids = {}
  function init(args)
    for line in io.lines(os.getenv("IDS_FILE")) do ids[#ids + 1] = line end
    math.randomseed(os.time())
  end
  request = function() return wrk.format("GET", prefix .. ids[math.random(#ids)]) end
elseif mode == "post" and body then
  local ids = {}
  function init(args)
    local file = os.getenv("IDS_FILE")
    if file then for line in io.lines(file) do ids[#ids + 1] = line end end
    math.randomseed(os.time())
  end
  request = function()
    n = n + 1
    local b = fill(body, "{{N}}", tag .. "-" .. n)
    if #ids > 0 then b = fill(b, "{{ID}}", ids[math.random(#ids)]) end
    return wrk.format("POST", prefix, nil, b)
  end
elseif mode == "post" then
  request = function()
    n = n + 1
    return wrk.format("POST", prefix, nil,
      '{"name":"Bench Schäfer KG ' .. tag .. "-" .. n .. '","type":"CUSTOMER","tags":["bench"]}')
  end
elseif mode == "put" then
  -- Ids whose current version is known wait in a FIFO; an id leaves it while its PUT is in flight
  -- and comes back with the version of the answer, so no request is sent with a stale version.
  local fifo, first, last = {}, 1, 0
  versions = {}
  local function give(id, v) last = last + 1; fifo[last] = id; versions[id] = v end
  function init(args)
    for line in io.lines(os.getenv("IDS_FILE")) do
      local id, v = line:match("^(%S+)%s+(%d+)")
      if id then give(id, tonumber(v)) end
    end
  end
  request = function()
    if first > last then return wrk.format("GET", prefix .. "none") end
    local id = fifo[first]
    fifo[first] = nil
    first = first + 1
    local v = versions[id]
    versions[id] = nil
    n = n + 1
    return wrk.format("PUT", prefix .. id, nil,
      fill(fill(putBody, "{{V}}", tostring(v)), "{{N}}", tag .. "-" .. n))
  end
  response = function(status, headers, body)
    if status == 200 and not consume then
      local id, v = body:match('"id":"([^"]+)"'), body:match('"version":(%d+)')
      if id and v then give(id, tonumber(v)) end
    end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('RESULT {"requests":%d,"duration_us":%d,"errors":%d,"status":%d,' ..
    '"p50":%d,"p99":%d,"max":%d}\n', summary.requests, summary.duration,
    e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
  local out = os.getenv("STATE_OUT")
  if mode == "put" and out then
    local f = io.open(out, "w")
    for _, t in ipairs(threads) do
      for id, v in pairs(t:get("versions")) do f:write(id, " ", v, "\n") end
    end
    f:close()
  end
end
