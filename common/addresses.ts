// IP addresses and CIDR blocks in configuration (server.trusted_proxies).
import { isIP } from 'node:net';

/** Config check: an IP address or CIDR block. */
export function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined || !address) return false;
  const v = isIP(address);
  if (v === 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (v === 6 ? 128 : 32);
}
