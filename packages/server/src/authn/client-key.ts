import ipaddr from 'ipaddr.js';

/**
 * The client a sign-in attempt is counted against, from the request's address (`request.ip`, which honours
 * SVC_TRUST_PROXY). An IPv6 client is its /64 prefix: one subscriber usually holds a whole /64, and counting each
 * address of it apart would give them 2^64 fresh clients. An IPv4-mapped IPv6 address is the IPv4 address it maps.
 * Anything unparsable (not an address) is counted as it is.
 */
export function clientKeyOf(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toRFC5952String()}/64`;
}
