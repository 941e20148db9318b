-- One replica's tick for one fleet object (package fleet's Exchange), atomically, with the
-- rules of fleet.MemoryStore. Every key it touches is in KEYS, all under one hash tag T, each
-- with the TTL its purpose needs (package fleet's Store), set when it is written:
--   KEYS[1] T:r             the replicas (ZSET, scored by their last exchange); window
--   KEYS[2] T:st            breaker groups: each key's state record (HASH, field: key name);
--                           keep = open timeout + trial timeout + window after a change
--   KEYS[3] T:seen:REPLICA  the Counts of this replica's last exchange (HASH, field: key
--                           name), which keep a re-sent exchange from counting twice; window
--   then per key: T:c:NAME  its counts, a ring of ten buckets (HASH q0..q9, a0..a9, b0..b9);
--   window after counts were added; and in budget groups T:g:NAME (HASH r:REPLICA -> grant,
--   sum) and T:ge:NAME (ZSET of the grants' ends): grant-for, when every grant has ended.
-- ARGV: replica, window ms, open timeout ms, trial timeout ms, budget (1/0), ratio, floor,
-- min replicas, grant-for ms, final (1/0), number of keys, then 15 per key: name, counts a,
-- b, unsent a, b, op (0 none, 1 open, 2 trial, 3 trial success, 4 trial failure, 5 trial
-- release), trial, known state (0 CLOSED, 1 OPEN, 2 HALF_OPEN), changed, open left ms,
-- trial, trial left ms, own requests, draw, open for ms (of an op 1 or 4; 0: the open
-- timeout).
-- Returns: now ms, replicas, then 9 per key: total a, total b, state, changed, open left
-- ms, trial, trial left ms, trial won (0/1), grant; then the number of the group's keys that
-- are OPEN or HALF_OPEN, and 6 for each: name, state, changed, open left ms, trial, trial
-- left ms.
if redis.replicate_commands then redis.replicate_commands() end -- TIME, then writes (Redis < 7)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local replica = ARGV[1]
local window, openFor, trialFor = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local budget = ARGV[5] == '1'
local ratio, floor, minReplicas, grantFor = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local final = ARGV[10] == '1'
local n = tonumber(ARGV[11])
local width = math.max(math.floor(window / 10), 1)
local bucket = math.floor(now / width)
local slot = bucket % 10
local keep = openFor + trialFor + window -- how long a state record outlives its last change
local per = budget and 3 or 1

redis.call('ZADD', KEYS[1], now, replica)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
redis.call('PEXPIRE', KEYS[1], window)
local replicas = redis.call('ZCARD', KEYS[1])
local out = {now, replicas}

local ring = {}
for s = 0, 9 do ring[#ring + 1] = 'q' .. s end
for s = 0, 9 do ring[#ring + 1] = 'a' .. s end
for s = 0, 9 do ring[#ring + 1] = 'b' .. s end

-- count adds the counts not yet counted to the ring ck, and returns the window's totals.
local function count(ck, name, ca, cb, ua, ub, sa, sb)
  local da, db = ua, ub
  local last = redis.call('HGET', KEYS[3], name)
  if last then
    local la, lb = string.match(last, '^(%d+) (%d+)$')
    la, lb = tonumber(la), tonumber(lb)
    if la and ca >= la and cb >= lb then da, db = ca - la, cb - lb end
  end
  redis.call('HSET', KEYS[3], name, sa .. ' ' .. sb)
  if da ~= 0 or db ~= 0 then
    if tonumber(redis.call('HGET', ck, 'q' .. slot)) ~= bucket then
      redis.call('HSET', ck, 'q' .. slot, bucket, 'a' .. slot, 0, 'b' .. slot, 0)
    end
    redis.call('HINCRBY', ck, 'a' .. slot, da)
    redis.call('HINCRBY', ck, 'b' .. slot, db)
    redis.call('PEXPIRE', ck, window)
  end
  local v = redis.call('HMGET', ck, unpack(ring))
  local ta, tb = 0, 0
  for s = 0, 9 do
    local q = tonumber(v[s + 1])
    if q and q > bucket - 10 and q <= bucket then
      ta = ta + (tonumber(v[11 + s]) or 0)
      tb = tb + (tonumber(v[21 + s]) or 0)
    end
  end
  return ta, tb
end

-- fleet.Grant, in the same order of operations.
local function grantOf(requests, retries, others, own, u)
  local left = ratio * requests + floor - retries
  if not (left > 0) then return 0 end
  local room = left - math.max(others, 0)
  local fleet = math.max(requests, 0)
  own = math.min(math.max(own, 0), fleet)
  local grant = left * ((own + 1) / (fleet + math.max(replicas, minReplicas, 1)))
  if room < grant then grant = room end
  if not (grant > 0) then return 0 end
  local whole = math.floor(grant)
  if u < grant - whole and whole + 1 <= room then whole = whole + 1 end
  return whole
end

-- grant replaces this replica's grant of a budget key (gk, gek) and returns it.
local function grant(gk, gek, ta, tb, own, u)
  for _, r in ipairs(redis.call('ZRANGEBYSCORE', gek, '-inf', now)) do -- ended grants
    redis.call('HINCRBY', gk, 'sum', -(tonumber(redis.call('HGET', gk, 'r:' .. r)) or 0))
    redis.call('HDEL', gk, 'r:' .. r)
  end
  redis.call('ZREMRANGEBYSCORE', gek, '-inf', now)
  local mine = tonumber(redis.call('HGET', gk, 'r:' .. replica)) or 0
  local others = (tonumber(redis.call('HGET', gk, 'sum')) or 0) - mine
  local g = 0
  if not final then g = grantOf(ta, tb, others, own, u) end
  redis.call('HSET', gk, 'sum', others + g)
  if g > 0 then
    redis.call('HSET', gk, 'r:' .. replica, g)
    redis.call('ZADD', gek, now + grantFor, replica)
  else
    redis.call('HDEL', gk, 'r:' .. replica)
    redis.call('ZREM', gek, replica)
  end
  redis.call('PEXPIRE', gk, grantFor)
  redis.call('PEXPIRE', gek, grantFor)
  return g
end

-- A state record: open (0/1), changed, open until, trial, trial until (0: decided or
-- none), touched, all in ms.
local function parse(rec)
  if not rec then return {0, 0, 0, 0, 0, 0} end
  local r = {}
  for x in string.gmatch(rec, '%d+') do r[#r + 1] = tonumber(x) end
  return r
end

-- stateOf returns state, changed, open left, trial, trial left of a record at now.
local function stateOf(r)
  if r[1] == 0 then return 0, r[2], 0, 0, 0 end
  local st, left = 2, 0
  if r[3] > now then st, left = 1, r[3] - now end
  if r[5] > now then return st, r[2], left, r[4], r[5] - now end
  return st, r[2], left, 0, 0
end

-- apply takes the replica's known state when newer, then the op; returns the record, won,
-- and whether the op closed the key.
local function apply(r, op, opTrial, kst, kch, kleft, ktrial, ktleft, kopen)
  local touched = false
  if kch > r[2] then -- the store forgot or went back: the replica knows better
    if kst == 0 then r = {0, kch, 0, r[4], 0, now} else r = {1, kch, now + kleft, r[4], 0, now} end
    touched = true
  end
  if r[1] == 1 and kch == r[2] and ktrial > r[4] and ktleft > 0 then
    r[4], r[5], touched = ktrial, now + ktleft, true
  end
  local nextChange = math.max(now, r[2] + 1)
  local pending = r[1] == 1 and opTrial == r[4] and r[5] ~= 0
  local won, closed = 0, false
  local opened = openFor -- how long an OPEN of op 1 or 4 lasts: the replica's, or the open timeout
  if kopen > 0 then opened = kopen end
  if op == 1 and r[1] == 0 then
    r = {1, nextChange, now + opened, r[4], 0, now}
  elseif op == 2 and r[1] == 1 and r[3] <= now and r[5] <= now then
    r[4], r[5], r[6], won = math.max(now, r[4] + 1, r[2] + 1), now + openFor + trialFor, now, 1
  elseif op == 3 and pending then
    r, closed = {0, nextChange, 0, r[4], 0, now}, true
  elseif op == 4 and pending then
    r = {1, nextChange, now + opened, r[4], 0, now}
  elseif op == 5 and opTrial == r[4] and r[5] > now then
    r[5], r[6] = 0, now
  elseif not touched then
    return r, 0, false, false
  end
  r[6] = now
  return r, won, closed, true
end

for i = 0, n - 1 do
  local j = 12 + i * 15
  local name = ARGV[j]
  local ck = KEYS[4 + i * per]
  local ta, tb = count(ck, name, tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]), tonumber(ARGV[j + 3]),
    tonumber(ARGV[j + 4]), ARGV[j + 1], ARGV[j + 2])
  local st, changed, left, trial, tleft, won, g = 0, 0, 0, 0, 0, 0, 0
  if budget then
    g = grant(KEYS[5 + i * per], KEYS[6 + i * per], ta, tb, tonumber(ARGV[j + 12]), tonumber(ARGV[j + 13]))
  else
    local r = parse(redis.call('HGET', KEYS[2], name))
    if r[6] + keep < now then r = parse(nil) end
    local closed, dirty
    r, won, closed, dirty = apply(r, tonumber(ARGV[j + 5]), tonumber(ARGV[j + 6]), tonumber(ARGV[j + 7]),
      tonumber(ARGV[j + 8]), tonumber(ARGV[j + 9]), tonumber(ARGV[j + 10]), tonumber(ARGV[j + 11]), tonumber(ARGV[j + 14]))
    if closed then -- by this exchange's trial success: the counts are forgotten
      redis.call('DEL', ck)
      ta, tb = 0, 0
    end
    if dirty then
      redis.call('HSET', KEYS[2], name, table.concat(r, ' '))
      redis.call('PEXPIRE', KEYS[2], keep)
    end
    st, changed, left, trial, tleft = stateOf(r)
  end
  for _, v in ipairs({ta, tb, st, changed, left, trial, tleft, won, g}) do out[#out + 1] = v end
end
redis.call('PEXPIRE', KEYS[3], window)

local listed = {}
if not budget then
  local all = redis.call('HGETALL', KEYS[2])
  for i = 1, #all, 2 do
    local r = parse(all[i + 1])
    if r[6] + keep < now then
      redis.call('HDEL', KEYS[2], all[i]) -- forgotten
    elseif r[1] == 1 then
      local st, changed, left, trial, tleft = stateOf(r)
      for _, v in ipairs({all[i], st, changed, left, trial, tleft}) do listed[#listed + 1] = v end
    end
  end
end
out[#out + 1] = #listed / 6
for _, v in ipairs(listed) do out[#out + 1] = v end
return out
