import net from 'node:net';

// Node only (node:net): imported by path (`@renkei/contracts/ip-allow-list`) by identity, which keeps the
// lists and checks its own calls, and by the gateway, which checks every other call; never by the web.

function parseCidr(cidr: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address, prefixText] = cidr.trim().split('/');
  if (!address) return null;
  const version = net.isIP(address);
  if (!version) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

export function isValidCidr(cidr: string): boolean {
  return parseCidr(cidr) !== null;
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is matched as `10.0.0.1`. */
function normaliseIp(ip: string): string {
  const trimmed = ip.trim();
  return trimmed.startsWith('::ffff:') && net.isIPv4(trimmed.slice(7)) ? trimmed.slice(7) : trimmed;
}

/** An empty list allows every address. */
export function isIpAllowed(ip: string, allowList: readonly string[]): boolean {
  if (allowList.length === 0) return true;
  const address = normaliseIp(ip);
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
  if (!family) return false;
  const list = new net.BlockList();
  for (const cidr of allowList) {
    const parsed = parseCidr(cidr);
    if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list.check(address, family);
}
