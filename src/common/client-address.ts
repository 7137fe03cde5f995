// What counts as one client's address for the budgets kept per address (the anonymous rate limit,
// sign-in locks): one subscriber's IPv6 network, not each of its 2^64 addresses.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The key of a client address: an IPv4 address as it is (also when it arrives IPv4-mapped,
 * `::ffff:a.b.c.d`), an IPv6 address by its /64, which one subscriber usually holds whole (one
 * address each would give an attacker 2^64 budgets). A trailing `/<bits>` is ignored. Undefined
 * for what is not an address.
 */
export function addressName(address: string): string | undefined {
  const plain = address.trim().replace(/\/\d{1,3}$/, '');
  // Node's check, not ipaddr.js's: that one takes inet_aton's `203.0.113` for 203.0.0.113.
  if (isIP(plain) === 0) return undefined;
  const parsed = ipaddr.process(plain);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}

/**
 * The budget key of a request's address: `addressName`'s, or the address as it came when it is
 * none (a socket's address is always one; this keeps any other string its own key). An IPv4
 * address, the common case, is taken as it is without parsing.
 */
export function addressBudgetName(address: string): string {
  if (!address.includes(':')) return address;
  return addressName(address) ?? address;
}
