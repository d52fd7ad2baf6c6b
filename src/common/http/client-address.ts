import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client's connections are counted under. An IPv6 client is its /64 network: that is what one subscriber
 * is handed (RFC 6177), so a client holding a /64 has 2^64 addresses, and counting each apart would cap nobody. An
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket names an IPv4 client) is that IPv4 address.
 * A zone (`fe80::1%eth0`) names the interface a link-local network is on, so it stays in the key. Anything that is
 * not an address is its own key.
 */
export function connectionKey(address: string): string {
  const zoneAt = address.indexOf('%');
  const bare = zoneAt < 0 ? address : address.slice(0, zoneAt);
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (isMappedIPv4(groups)) return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  const network = [...groups.slice(0, 4), 0, 0, 0, 0];
  return `${compressed(network)}/64${zoneAt < 0 ? '' : address.slice(zoneAt)}`;
}

/** The eight 16-bit groups of a valid IPv6 address: `::` filled in, a dotted IPv4 tail read as the last two. */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const before = head === '' ? [] : head.split(':');
  const after = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : 8 - before.length - after.length;
  return [...before, ...Array<string>(zeros).fill('0'), ...after].map((group) => parseInt(group, 16));
}

/** `::ffff:0:0/96`: an IPv4 address as a dual-stack socket reports it. */
function isMappedIPv4(groups: readonly number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}

/** RFC 5952's text: lower case, no leading zeros, the longest run of two or more zero groups (the first of equals) as `::`. */
function compressed(groups: readonly number[]): string {
  let runStart = -1;
  let runLength = 1;
  for (let start = 0; start < groups.length;) {
    let end = start;
    while (end < groups.length && groups[end] === 0) end++;
    if (end - start > runLength) [runStart, runLength] = [start, end - start];
    start = Math.max(end, start + 1);
  }
  const hex = groups.map((group) => group.toString(16));
  if (runStart < 0) return hex.join(':');
  return `${hex.slice(0, runStart).join(':')}::${hex.slice(runStart + runLength).join(':')}`;
}
