-- One replica's tick for one fleet object (package fleet's Exchange), atomically.
-- KEYS[1]: the group's replica set, "{group}:r"; every other key starts with the same
-- hash tag, so one group lives in one Redis Cluster slot.
-- ARGV: prefix ("{group}:"), replica, window ms, open timeout ms, number of keys, then per
-- key: name, add a, add b, op (0 none, 1 open, 2 trial, 3 trial success, 4 trial failure).
-- Returns: now ms, replicas, then per key: total a, total b, state (0 CLOSED, 1 OPEN,
-- 2 HALF_OPEN), open left ms, trial won (0/1); then the number of the group's keys that are
-- OPEN or HALF_OPEN (the set "{group}:open"), and for each: name, state, open left ms.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local prefix, replica = ARGV[1], ARGV[2]
local window, openFor, n = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local width = math.max(math.floor(window / 10), 1)
local bucket = math.floor(now / width)
local stateTTL = math.max(window, openFor) * 10
local opened = prefix .. 'open' -- the names of the keys OPEN or HALF_OPEN

redis.call('ZADD', KEYS[1], now, replica)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
redis.call('PEXPIRE', KEYS[1], window * 2)
local out = {now, redis.call('ZCARD', KEYS[1])}

for i = 0, n - 1 do
  local j = 6 + i * 4
  local k = prefix .. ARGV[j]
  local a, b, op = tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]), tonumber(ARGV[j + 3])
  local counts = k .. ':c:'  -- counts of bucket q: counts .. q, fields a and b
  local state = k .. ':s'    -- exists while OPEN or HALF_OPEN
  local open = k .. ':o'     -- exists while OPEN
  local trial = k .. ':t'    -- the elected trial replica, for one open timeout
  if a ~= 0 or b ~= 0 then
    local c = counts .. bucket
    redis.call('HINCRBY', c, 'a', a)
    redis.call('HINCRBY', c, 'b', b)
    redis.call('PEXPIRE', c, window + width)
  end
  local won = 0
  local isOpen = redis.call('EXISTS', state) == 1
  -- (Re)opens the key for openFor, and lists it in the opened set for as long as its state
  -- lives: a trial failure refreshes the set's TTL too, or a long outage would outlive it.
  local function reopen()
    redis.call('SET', state, '1', 'PX', stateTTL)
    redis.call('SET', open, '1', 'PX', openFor)
    redis.call('DEL', trial)
    redis.call('SADD', opened, ARGV[j])
    redis.call('PEXPIRE', opened, stateTTL)
  end
  if op == 1 and not isOpen then
    reopen()
  elseif op == 2 and isOpen and redis.call('EXISTS', open) == 0 then
    if redis.call('SET', trial, replica, 'NX', 'PX', openFor) then
      won = 1
    end
  elseif op == 3 and isOpen then
    redis.call('DEL', state, open, trial)
    redis.call('SREM', opened, ARGV[j])
    for q = bucket - 9, bucket do
      redis.call('DEL', counts .. q)
    end
  elseif op == 4 and isOpen then
    reopen()
  end
  local ta, tb = 0, 0
  for q = bucket - 9, bucket do
    local v = redis.call('HMGET', counts .. q, 'a', 'b')
    ta = ta + (tonumber(v[1]) or 0)
    tb = tb + (tonumber(v[2]) or 0)
  end
  local st, left = 0, 0
  if redis.call('EXISTS', state) == 1 then
    left = redis.call('PTTL', open)
    if left > 0 then st = 1 else st, left = 2, 0 end
  end
  out[#out + 1] = ta
  out[#out + 1] = tb
  out[#out + 1] = st
  out[#out + 1] = left
  out[#out + 1] = won
end
local names = redis.call('SMEMBERS', opened)
local listed = {}
for _, name in ipairs(names) do
  if redis.call('EXISTS', prefix .. name .. ':s') == 0 then
    redis.call('SREM', opened, name) -- its state expired
  else
    local left = redis.call('PTTL', prefix .. name .. ':o')
    if left > 0 then
      listed[#listed + 1] = {name, 1, left}
    else
      listed[#listed + 1] = {name, 2, 0}
    end
  end
end
out[#out + 1] = #listed
for _, l in ipairs(listed) do
  out[#out + 1] = l[1]
  out[#out + 1] = l[2]
  out[#out + 1] = l[3]
end
return out
