import dns from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * Where an outbound webhook may go (docs/webhooks.md, "Targets"): the URL's host is resolved
 * and every address it resolves to must pass, at create and update and again before every
 * attempt; the attempt then connects to the address that was checked (no second lookup that a
 * rebinding DNS server could answer differently). Range classification is ipaddr.js's.
 */

/**
 * Addresses of cloud instance metadata services and the hosts' other platform endpoints:
 * never a target, whatever the setting (the IPv4 ones outside 169.254/16 are public or
 * private unicast, so the range check alone would let them through).
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle …
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure wire server (host agent, DNS, health probes)
  'fd00:ec2::254', // AWS metadata over IPv6
  'fd00:ec2::253', // AWS DNS resolver over IPv6
  'fd00:ec2::123', // AWS time sync over IPv6
  'fd20:ce::254', // GCP metadata over IPv6
]);
const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);

/** Reachable only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true. */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

/** The system resolver (`/etc/hosts`, then DNS), every address of the name. */
export const systemResolve: Resolve = (host) =>
  dns.promises.lookup(host, { all: true, verbatim: true });

export type TargetCheck =
  { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

type AddressClass = 'public' | 'private' | { refused: string };

/**
 * An IPv4-compatible IPv6 address (`::a.b.c.d`, `::/96` but `::` and `::1`): deprecated
 * (RFC 4291), but a stack that still maps it reaches the IPv4 address it embeds.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = ip.parts;
  if (parts.slice(0, 6).some((p) => p !== 0)) return undefined;
  if (parts[6] === 0 && parts[7]! <= 1) return undefined;
  return ipaddr.fromByteArray(ip.toByteArray().slice(12)) as ipaddr.IPv4;
}

/** Public, private (allowed by the setting) or refused with why. */
export function classifyAddress(text: string): AddressClass {
  let ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    const compatible = embeddedIPv4(v6);
    if (compatible) {
      // Judged as the address it embeds; a public one is refused too (not routable as such).
      const inner = classifyAddress(compatible.toString());
      return inner === 'public'
        ? { refused: `${v6.toString()} is an IPv4-compatible IPv6 address (deprecated)` }
        : inner;
    }
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
  }
  const normal = ip.toString();
  if (METADATA_ADDRESSES.has(normal)) return { refused: `${normal} is a cloud metadata address` };
  const range = ip.range();
  if (range === 'unicast') return 'public';
  if (PRIVATE_RANGES.has(range)) return 'private';
  if (range === 'linkLocal') return { refused: `${normal} is a link-local address` };
  return { refused: `${normal} is a special-purpose address (${range})` };
}

/**
 * Checks `raw` as a webhook target. https always; plain http only to private addresses and
 * only with `allowPrivate`. Answers the first checked address to connect to, or why not.
 */
export async function checkTarget(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolve = systemResolve,
): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: 'must use https' };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'must not contain credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === '') return { ok: false, reason: 'has no host' };
  if (METADATA_HOSTS.has(host)) return { ok: false, reason: `${host} is a cloud metadata host` };

  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch {
      return { ok: false, reason: `host ${host} does not resolve` };
    }
    if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` };
  }

  let allPrivate = true;
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (typeof kind === 'object')
      return { ok: false, reason: `resolves to a refused address: ${kind.refused}` };
    if (kind === 'private') {
      if (!allowPrivate)
        return {
          ok: false,
          reason: `resolves to a private or loopback address (${address}); the operator allows these with WEBHOOK_ALLOW_PRIVATE_TARGETS=true`,
        };
    } else allPrivate = false;
  }
  if (url.protocol === 'http:' && !(allowPrivate && allPrivate))
    return { ok: false, reason: 'must use https' };
  const address = addresses[0]!;
  return { ok: true, url, address, family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4 };
}
