/** How many connection attempts one address may make: a burst, refilled evenly over a period (RLY-4). */
export interface ConnectRate {
  burst: number;
  periodMs: number;
}

export const DEFAULT_CONNECT_RATE: ConnectRate = { burst: 30, periodMs: 10_000 };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Above this many tracked addresses, full buckets are forgotten at once rather than on the next sweep. */
const MAX_TRACKED_ADDRESSES = 100_000;

/** A token bucket per remote address; a full bucket is forgotten, so the table holds only recent callers. */
export class ConnectRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly rate: ConnectRate,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one attempt's token; false when the address has none left. */
  take(address: string): boolean {
    const now = this.now();
    const bucket = this.buckets.get(address) ?? { tokens: this.rate.burst, updatedAt: now };
    this.refill(bucket, now);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    if (!this.buckets.has(address) && this.buckets.size >= MAX_TRACKED_ADDRESSES) this.sweep();
    this.buckets.set(address, bucket);
    return true;
  }

  /** Drops the buckets that have refilled completely. */
  sweep(): void {
    const now = this.now();
    for (const [address, bucket] of this.buckets) {
      this.refill(bucket, now);
      if (bucket.tokens >= this.rate.burst) this.buckets.delete(address);
    }
  }

  get trackedAddresses(): number {
    return this.buckets.size;
  }

  private refill(bucket: Bucket, now: number): void {
    const earned = ((now - bucket.updatedAt) / this.rate.periodMs) * this.rate.burst;
    bucket.tokens = Math.min(this.rate.burst, bucket.tokens + earned);
    bucket.updatedAt = now;
  }
}
