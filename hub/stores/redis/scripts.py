"""The Lua scripts that keep a room's keys consistent (hub/stores/redis/keys.py says what each key
holds): each touches several of a room's keys atomically, and publishes from inside the script, so no
process sees an entry that is not in the log."""
from __future__ import annotations

# Append one entry to a room's log, only while this process holds the lease (fencing), and publish it
# in the same step so that no process sees an entry that is not in the log. Idempotent: a retry after
# a lost reply finds its entry on top and publishes it again. A lease that expired while Redis was
# away is taken back if nobody else took it.
#   KEYS: lease, log, room, snap
#   ARGV: me, n, entry, meta or '', ttl_ms, channel, publish command, lease_ms, tokens or ''

#   returns 1 appended, 2 was already there, 0 fenced (another owner), -1 the room is gone,
#   -2 the entry before it is not in the log: Redis lost the log's tail (an fsync-everysec crash),
#   or refused that entry and took this one sent behind it (out of memory, then not): appended, it
#   would leave a hole no relay can heal across, so the owner writes the room back instead (RESEED)
COMMIT = """
local holder = redis.call('GET', KEYS[1])
if not holder then
  if redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[8])
elseif holder ~= ARGV[1] then
  return 0
end
local n = tonumber(ARGV[2])
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #top > 0 then
  local last = tonumber(string.match(top[1][1], '^(%d+)'))
  if last == n then
    redis.call(ARGV[7], ARGV[6], ARGV[3])
    return 2
  end
  if last > n then return 0 end
  if last < n - 1 then return -2 end
end
redis.call('XADD', KEYS[2], ARGV[2] .. '-0', 'e', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'meta', ARGV[4]) end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[3], 'tokens', ARGV[9]) end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call(ARGV[7], ARGV[6], ARGV[3])
return 1
"""

# The lease, record and snapshot of a room, as CREATE and RESEED both write them.
_SEED = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
end
redis.call('HSET', KEYS[2], 'rec', ARGV[3], 'meta', ARGV[4], 'tokens', ARGV[5], 'snap_n', 0)
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
"""
# A new room: its lease, record and first snapshot together.
#   KEYS: lease, room, snap   ARGV: me, lease_ms, rec, meta, tokens, snap, ttl_ms
CREATE = _SEED + "return 1\n"

# A room written back from its owner's memory after Redis lost it (a restart without its data): what
# CREATE writes, the snapshot being the room as it stands after entry n, and then the entries of the
# log that were on their way when Redis lost it (those after the last one known to be in the log, up
# to n), appended and published in order. Without them the log began after n, and a relay that
# missed their one publish (its pub/sub came back after this script ran) could neither read them
# back nor learn that it lacked them: its seats waited for a delta that never came.
#   KEYS: lease, room, snap, log   ARGV: me, lease_ms, rec, meta, tokens, snap, ttl_ms, channel,
#   publish command, then n1, entry1, n2, entry2, ...   returns 1, or 0 when another process holds it
RESEED = _SEED + """
for i = 10, #ARGV, 2 do
  local top = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
  local last = 0
  if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)')) end
  if tonumber(ARGV[i]) > last then redis.call('XADD', KEYS[4], ARGV[i] .. '-0', 'e', ARGV[i + 1]) end
  redis.call(ARGV[9], ARGV[8], ARGV[i + 1])
end
if #ARGV >= 10 then redis.call('PEXPIRE', KEYS[4], ARGV[7]) end
return 1
"""

# A snapshot, written after the entry it follows is in the log; never by a fenced owner.
#   KEYS: lease, snap, room   ARGV: me, snap, ttl_ms, n, tokens
SNAPSHOT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('HSET', KEYS[3], 'snap_n', ARGV[4], 'tokens', ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
"""

# Keep leases; take one back if it lapsed while Redis was away and nobody else took it. Many rooms
# in one call where every key lives on one Redis: one command instead of one per room keeps the
# writer's pipeline short, and with it the wait of the commits queued behind it. On a cluster each
# room's keys hash to a slot of their own, so there it is called one room at a time.
#   KEYS: lease1, room1, lease2, room2, ...   ARGV: me, lease_ms
#   returns per room 1 kept, 0 lost, -1 the room is gone
RENEW = """
local out = {}
for i = 1, #KEYS, 2 do
  local holder = redis.call('GET', KEYS[i])
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
    out[#out + 1] = 1
  elseif not holder then
    if redis.call('EXISTS', KEYS[i + 1]) == 0 then
      out[#out + 1] = -1
    else
      redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
      out[#out + 1] = 1
    end
  else
    out[#out + 1] = 0
  end
end
return out
"""

# Take a room that nobody holds.   KEYS: lease, room   ARGV: me, lease_ms   returns 1, 0, -1 as RENEW does
CLAIM = """
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end
return 0
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0
"""
