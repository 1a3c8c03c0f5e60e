// The caller's address for rate limits: the socket's peer, or — when that peer is one of
// `server.trusted_proxies` — the nearest X-Forwarded-For entry that is not a trusted proxy.
// Without the setting X-Forwarded-For is ignored (a client could name any address).
import { BlockList, isIP } from 'node:net';

export type ClientIp = (peer: string, forwardedFor: string) => string;

export function createClientIp(trusted: readonly string[]): ClientIp {
  if (trusted.length === 0) return (peer) => peer;
  const list = new BlockList();
  for (const entry of trusted) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  const isTrusted = (ip: string) => {
    const v = isIP(ip);
    return v !== 0 && list.check(ip, v === 6 ? 'ipv6' : 'ipv4');
  };
  return (peer, forwardedFor) => {
    if (!forwardedFor || !isTrusted(peer)) return peer;
    const hops = forwardedFor.split(',').map((h) => h.trim());
    // right to left: the first hop that is not one of ours is the client
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) return peer; // a malformed chain is not trusted
      if (!isTrusted(hop)) return hop;
    }
    return hops[0] ?? peer;
  };
}
