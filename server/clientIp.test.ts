import { describe, expect, it } from 'vitest';
import { isAddressOrCidr } from '../common/addresses.js';
import { createClientIp } from './clientIp.js';

describe('client address behind proxies', () => {
  it('without trusted proxies X-Forwarded-For is ignored', () => {
    expect(createClientIp([])('10.0.0.5', '1.2.3.4')).toBe('10.0.0.5');
  });

  it('from a trusted proxy: the nearest untrusted hop; from anyone else: the peer', () => {
    const ip = createClientIp(['10.0.0.0/8', '192.168.1.7']);
    expect(ip('10.1.2.3', '1.2.3.4')).toBe('1.2.3.4');
    expect(ip('10.1.2.3', '9.9.9.9, 1.2.3.4, 192.168.1.7')).toBe('1.2.3.4');
    expect(ip('8.8.8.8', '1.2.3.4')).toBe('8.8.8.8');
    expect(ip('10.1.2.3', '')).toBe('10.1.2.3');
    expect(ip('10.1.2.3', 'not-an-ip, 1.2.3.4')).toBe('1.2.3.4');
    expect(ip('10.1.2.3', '1.2.3.4, garbage')).toBe('10.1.2.3');
    expect(ip('10.1.2.3', '10.0.0.1, 10.0.0.2')).toBe('10.0.0.1');
  });

  it('config accepts addresses and CIDR blocks only', () => {
    for (const ok of ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']) expect(isAddressOrCidr(ok), ok).toBe(true);
    for (const bad of ['localhost', '10.0.0.0/33', '1.2.3.4/x', '', '1.2.3.4/8/9']) expect(isAddressOrCidr(bad), bad).toBe(false);
  });
});
