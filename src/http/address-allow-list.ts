import { BlockList, isIPv4 } from 'node:net';

/**
 * A check of client addresses against IP addresses and CIDR ranges (`127.0.0.0/8`, `::1/128`),
 * validated by config.ts. An IPv4 peer may arrive as `::ffff:a.b.c.d`; it is checked as the IPv4 address it is.
 */
export function allowList(ranges: string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, bits] = range.split('/') as [string, string | undefined];
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const plain = mapped ?? address;
    return list.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6');
  };
}
