-- One replica's tick for one rate group (package fleet's Exchange with Rate set),
-- atomically, with the rules of fleet.MemoryStore: each quota's view merged by
-- fleet.MergeQuota, the longest hold kept, the replica's demand recorded, and its part by
-- fleet.RatePart. Every key it touches is in KEYS, all under one hash tag T, each with the TTL
-- its purpose needs (package fleet's Store), set when it is written; per key NAME:
--   T:q:NAME  the fleet's views (HASH): q:QUOTA -> "limit windowms remaining resetms untilms"
--             (remaining -1 and reset 0 when no current window is known; forgotten after
--             until: a window after the reset, or after the exchange that told it), and
--             hold -> its end in ms; TTL to the latest until or hold end
--   T:d:NAME  the replicas' demands (HASH): r:REPLICA -> "own untilms" (until: share-for
--             after its exchange), since -> when the demands began without a gap; TTL
--             share-for
-- ARGV: replica, share-for ms, min replicas, final (1/0), number of keys, then per key:
-- name, own, hold ms (0: none), number of quotas, then 5 per quota: name, limit, window ms,
-- remaining (-1: no current window), reset-in ms.
-- Returns: now ms, replicas (the most demands a key counts), then per key: hold ms, part
-- from and to (strings: Lua numbers would be truncated), shared ms, number of quotas, then
-- 5 per quota as in ARGV.
if redis.replicate_commands then redis.replicate_commands() end -- TIME, then writes (Redis < 7)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local replica = ARGV[1]
local shareFor, minReplicas = tonumber(ARGV[2]), tonumber(ARGV[3])
local final = ARGV[4] == '1'
local n = tonumber(ARGV[5])
local out = {now, 0}

-- A view: limit, window ms, remaining, reset-in ms.
local function current(q) return q[3] >= 0 and q[4] > 0 end

-- fleet.MergeQuota.
local function merge(s, i)
  local o = {math.max(s[1], i[1], 0), math.max(s[2], i[2], 0), -1, 0}
  local half = o[2] / 2
  if not current(i) and not current(s) then
  elseif not current(i) then o[3], o[4] = s[3], s[4]
  elseif not current(s) or (half > 0 and i[4] - s[4] >= half) then o[3], o[4] = i[3], i[4]
  elseif half > 0 and s[4] - i[4] >= half then o[3], o[4] = s[3], s[4]
  else o[3], o[4] = math.min(s[3], i[3]), math.max(s[4], i[4]) end
  return o
end

-- stored returns a stored record as a view counted from now, and its until; nil when none.
local function stored(rec)
  local r = {}
  for x in string.gmatch(rec, '-?%d+') do r[#r + 1] = tonumber(x) end
  if r[5] < now then return nil end
  local v = {r[1], r[2], -1, 0}
  if r[3] >= 0 and r[4] > now then v[3], v[4] = r[3], r[4] - now end
  return v, r[5]
end

-- record returns the stored form of view v, counted from now, and its until.
local function record(v)
  local reset, untilMs = 0, now + v[2]
  if current(v) then reset = now + v[4]; untilMs = reset + v[2] end
  return table.concat({v[1], v[2], v[3], reset, untilMs}, ' '), untilMs
end

-- fleet.RatePart of the demands (name -> own), replica among them or not.
local function part(demands)
  local names = {}
  for name in pairs(demands) do names[#names + 1] = name end
  if not demands[replica] then names[#names + 1] = replica end
  table.sort(names)
  local from, total = 0, 0
  for _, name in ipairs(names) do
    local w = math.max(demands[name] or 0, 0) + 1
    if name < replica then from = from + w end
    total = total + w
  end
  if #names < minReplicas then total = total * minReplicas / #names end
  local w = math.max(demands[replica] or 0, 0) + 1
  return string.format('%.17g', from / total), string.format('%.17g', (from + w) / total)
end

local arg = 6
for i = 0, n - 1 do
  local qk, dk = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local own, holdIn, m = tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2]), tonumber(ARGV[arg + 3])
  arg = arg + 4

  -- The views: the stored ones, each told merged in, the hold.
  local views, latest = {}, 0
  local all = redis.call('HGETALL', qk)
  local hold = 0
  for j = 1, #all, 2 do
    local field = all[j]
    if field == 'hold' then
      hold = tonumber(all[j + 1])
    else
      local v, untilMs = stored(all[j + 1])
      if v then views[string.sub(field, 3)] = v else redis.call('HDEL', qk, field) end
    end
  end
  for _ = 1, m do
    local name = ARGV[arg]
    local v = merge(views[name] or {0, 0, -1, 0},
      {tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2]), tonumber(ARGV[arg + 3]), tonumber(ARGV[arg + 4])})
    views[name] = v
    local rec = record(v)
    redis.call('HSET', qk, 'q:' .. name, rec)
    arg = arg + 5
  end
  if holdIn > 0 and now + holdIn > hold then
    hold = now + holdIn
    redis.call('HSET', qk, 'hold', hold)
  end
  local quotas = {}
  for name, v in pairs(views) do
    local _, untilMs = record(v)
    latest = math.max(latest, untilMs)
    for _, x in ipairs({name, v[1], v[2], v[3], v[4]}) do quotas[#quotas + 1] = x end
  end
  local holdLeft = 0
  if hold > now then
    holdLeft = hold - now
    latest = math.max(latest, hold)
  elseif hold > 0 then
    redis.call('HDEL', qk, 'hold')
  end
  if latest > now then redis.call('PEXPIRE', qk, latest - now) else redis.call('DEL', qk) end

  -- The demands: the live ones, this replica's recorded (or, final, ended), the part.
  local demands, live, since = {}, 0, nil
  all = redis.call('HGETALL', dk)
  for j = 1, #all, 2 do
    local field = all[j]
    if field == 'since' then
      since = tonumber(all[j + 1])
    else
      local d, untilMs = string.match(all[j + 1], '^(-?%d+) (%d+)$')
      if tonumber(untilMs) < now then
        redis.call('HDEL', dk, field)
      else
        demands[string.sub(field, 3)] = tonumber(d)
        live = live + 1
      end
    end
  end
  if live == 0 or not since then
    since = now
    redis.call('HSET', dk, 'since', since)
  end
  if final then
    demands[replica] = nil
    redis.call('HDEL', dk, 'r:' .. replica)
  else
    demands[replica] = own
    redis.call('HSET', dk, 'r:' .. replica, own .. ' ' .. (now + shareFor))
  end
  redis.call('PEXPIRE', dk, shareFor)
  local count = 0
  for _ in pairs(demands) do count = count + 1 end
  out[2] = math.max(out[2], count)
  local from, to = part(demands)

  for _, x in ipairs({holdLeft, from, to, now - since, #quotas / 5}) do out[#out + 1] = x end
  for _, x in ipairs(quotas) do out[#out + 1] = x end
end
return out
