// The rate-limit counts of one turn of the event loop, sent to Redis as one script call.
//
// Every /v1 request counts against its credential in Redis and reads its markers in the same
// round trip (src/domain/auth/authenticate-with-markers.ts). One command per request cost the
// client more than the rest of a warm read (building, timing and decoding each command) and Redis
// a script call each; the requests read in one turn are concurrent anyway, so their counts are
// queued and sent together when the turn's reading is done (setImmediate runs after the poll
// phase), at most MAX_BATCH to a call. The script counts each in the order queued, atomically as
// one script does, so limits stay exact across nodes.
//
// A burst from one client is many hits of one counter with the same markers, queued one after
// another: a hit joins the item queued last when that item counts the same counter with the same
// markers, so the item counts n at once (INCRBY) and reads its markers once, and each hit is
// handed the count it would have had alone (the last n of the total, in queue order). A peek or a
// different hit queued between two hits keeps them apart, so every count is what it was.
//
// All keys of a call are passed as KEYS (a standalone Redis, or one whose keys share a slot; this
// service does not use Redis Cluster).

// KEYS: per item, its counter then its markers. ARGV[1]: the number of items; then per item: the
// window in ms, how many hits it counts ('0' to peek), the number of its markers. The reply, per item: the
// count, the window's end, then the markers' values. The counter key and window arithmetic are
// those every node uses: a window starts at a multiple of its length on Redis's own clock.
export const HIT_MANY = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
local k = 1
local a = 2
for item = 1, tonumber(ARGV[1]) do
  local windowMs = tonumber(ARGV[a])
  local start = now - (now % windowMs)
  local key = KEYS[k] .. ':' .. ARGV[a] .. ':' .. start
  local count
  local hits = tonumber(ARGV[a + 1])
  if hits > 0 then
    count = redis.call('INCRBY', key, hits)
    if count == hits then redis.call('PEXPIRE', key, windowMs + 5000) end
  else
    count = tonumber(redis.call('GET', key) or '0')
  end
  out[#out + 1] = count
  out[#out + 1] = start + windowMs
  k = k + 1
  for m = 1, tonumber(ARGV[a + 2]) do
    out[#out + 1] = redis.call('GET', KEYS[k])
    k = k + 1
  end
  a = a + 3
end
return out
`;

/** Most counts sent in one script call: a call keeps Redis busy for its whole length. */
export const MAX_BATCH = 256;

export interface HitRequest {
  key: string;
  windowSec: number;
  count: boolean;
  markers: readonly string[];
}

export type HitReply = [count: number, resetAtMs: number, ...markers: (string | null)[]];

interface Waiter {
  resolve: (reply: HitReply) => void;
  reject: (err: unknown) => void;
}

/** One item of a script call: a peek, or one or more hits of one counter with the same markers. */
interface Queued extends HitRequest {
  /** in queue order; a peek has one */
  waiters: Waiter[];
}

const sameHit = (queued: Queued, request: HitRequest) =>
  queued.count &&
  request.count &&
  queued.key === request.key &&
  queued.windowSec === request.windowSec &&
  queued.markers.length === request.markers.length &&
  queued.markers.every((marker, i) => marker === request.markers[i]);

/** Queues hits and sends each turn's in calls of at most MAX_BATCH through `send` (one EVALSHA of HIT_MANY). */
export class HitBatcher {
  private queued: Queued[] = [];
  private readonly send: (numKeys: number, args: string[]) => Promise<(string | number | null)[]>;

  constructor(send: (numKeys: number, args: string[]) => Promise<(string | number | null)[]>) {
    this.send = send;
  }

  hit(request: HitRequest): Promise<HitReply> {
    return new Promise((resolve, reject) => {
      const last = this.queued.at(-1);
      if (last && sameHit(last, request)) last.waiters.push({ resolve, reject });
      else if (this.queued.push({ ...request, waiters: [{ resolve, reject }] }) === 1) setImmediate(this.flush);
    });
  }

  private readonly flush = () => {
    const queued = this.queued;
    this.queued = [];
    for (let i = 0; i < queued.length; i += MAX_BATCH) void this.call(queued.slice(i, i + MAX_BATCH));
  };

  private async call(items: Queued[]) {
    const keys: string[] = [];
    const args: string[] = [String(items.length)];
    for (const item of items) {
      keys.push(item.key, ...item.markers);
      args.push(String(item.windowSec * 1000), item.count ? String(item.waiters.length) : '0', String(item.markers.length));
    }
    let reply: (string | number | null)[];
    try {
      reply = await this.send(keys.length, [...keys, ...args]);
    } catch (err) {
      for (const item of items) for (const waiter of item.waiters) waiter.reject(err);
      return;
    }
    let at = 0;
    for (const item of items) {
      const end = at + 2 + item.markers.length;
      const [total, ...rest] = reply.slice(at, end) as HitReply;
      // the k-th of n hits (from 0) is the one that took the count to total - n + 1 + k
      const first = Number(total) - item.waiters.length + 1;
      for (const [k, waiter] of item.waiters.entries()) waiter.resolve([first + k, ...rest] as HitReply);
      at = end;
    }
  }
}
