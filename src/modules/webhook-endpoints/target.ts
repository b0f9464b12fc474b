import dns from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * Where an outbound webhook may go (docs/webhooks.md, "Targets"): the URL's host is resolved
 * and every address it resolves to must pass, at create and update and again before every
 * attempt; the attempt then connects to the address that was checked (no second lookup that a
 * rebinding DNS server could answer differently). Range classification is ipaddr.js's.
 */

/** Addresses of cloud instance metadata services: never a target, whatever the setting. */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean …
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  'fd00:ec2::254', // AWS over IPv6
]);
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/** Reachable only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true. */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

export type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

/** The system resolver (`/etc/hosts`, then DNS), every address of the name. */
export const systemResolve: Resolve = (host) =>
  dns.promises.lookup(host, { all: true, verbatim: true });

export type TargetCheck =
  { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

type AddressClass = 'public' | 'private' | { refused: string };

/** Public, private (allowed by the setting) or refused with why. */
export function classifyAddress(text: string): AddressClass {
  let ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress())
    ip = (ip as ipaddr.IPv6).toIPv4Address();
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
