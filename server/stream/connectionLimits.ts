// Open streams per client IP (anonymous) and per API key (DESIGN §11.7, config `stream`): a key
// lifts the per-IP limit as it does on REST. Shared by the WebSocket and SSE routes.
import type { Config } from '../../common/config.js';

export interface ConnectionLimits {
  /** Take a slot in `bucket`; false when it is full. */
  take(bucket: string): boolean;
  release(bucket: string): void;
  /** the limit of a bucket (`ip:` or `key:`) */
  limitOf(bucket: string): number;
}

export const ipBucket = (ip: string) => `ip:${ip}`;
export const keyBucket = (keyId: string) => `key:${keyId}`;

export function createConnectionLimits(config: Config['stream']): ConnectionLimits {
  const open = new Map<string, number>();
  const limitOf = (bucket: string) => (bucket.startsWith('key:') ? config.max_connections_per_key : config.max_connections_per_ip);
  return {
    take(bucket) {
      const n = open.get(bucket) ?? 0;
      if (n >= limitOf(bucket)) return false;
      open.set(bucket, n + 1);
      return true;
    },
    release(bucket) {
      const n = (open.get(bucket) ?? 0) - 1;
      if (n <= 0) open.delete(bucket);
      else open.set(bucket, n);
    },
    limitOf,
  };
}
