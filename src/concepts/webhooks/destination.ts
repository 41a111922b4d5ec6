// Where a webhook may be sent. An admin chooses the URL, and Fanion sends from inside the network:
// without a policy an addon could read a cloud metadata service (169.254.169.254), reach services
// bound to loopback, or call Fanion's own admin API in a loop. So loopback, link-local and every
// other non-public address is refused, private ranges too unless WEBHOOK_ALLOW_PRIVATE, except
// host names in WEBHOOK_ALLOW_HOSTS and addresses in WEBHOOK_ALLOW_RANGES. Literal addresses are
// refused when the addon is saved; names are checked at send time on every address they resolve
// to, by the lookup of the very connection that is made (so DNS cannot answer differently between
// the check and the connect).
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { Address4, Address6 } from 'ip-address';
import type { WebhooksConfig } from '../../core/config.js';

export interface DestinationPolicy {
  allowPrivate: boolean;
  /** Host names (lower case, without a trailing dot) reached whatever they resolve to. */
  allowHosts: ReadonlySet<string>;
  allowRanges: readonly (Address4 | Address6)[];
}

export function destinationPolicy(webhooks: Pick<WebhooksConfig, 'allowHosts' | 'allowRanges' | 'allowPrivate'>): DestinationPolicy {
  return {
    allowPrivate: webhooks.allowPrivate,
    allowHosts: new Set(webhooks.allowHosts),
    allowRanges: webhooks.allowRanges.map((r) => (Address4.isValid(r) ? new Address4(r) : new Address6(r))),
  };
}

/** The URL's host as the resolver and the socket take it: no brackets, no trailing dot, lower case. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

function parse(ip: string): Address4 | Address6 | null {
  try {
    return net.isIPv4(ip) ? new Address4(ip) : net.isIPv6(ip) ? new Address6(ip) : null;
  } catch {
    return null;
  }
}

function inAllowedRange(addr: Address4 | Address6, policy: DestinationPolicy): boolean {
  // An IPv4-mapped or NAT64 address answers for the IPv4 address it carries too.
  const forms: (Address4 | Address6)[] = [addr];
  if (addr instanceof Address6) {
    const v4 = addr.embeddedIPv4();
    if (v4) forms.push(v4);
  }
  return policy.allowRanges.some((range) => forms.some((a) => a.isHostInSubnet(range)));
}

/** Why `ip` may not be reached under `policy` (`"a loopback address"`…), or null when it may. */
export function refusal(ip: string, policy: DestinationPolicy): string | null {
  const addr = parse(ip);
  if (!addr) return 'not an IP address';
  if (inAllowedRange(addr, policy)) return null;
  if (addr.isGlobal()) return null;
  if (addr.isLoopback()) return 'a loopback address';
  if (addr.isLinkLocal()) return 'a link-local address';
  if (addr.isPrivate() || addr.isCGNAT()) return policy.allowPrivate ? null : 'a private address';
  if (addr.isUnspecified()) return 'the unspecified address';
  if (addr.isMulticast()) return 'a multicast address';
  return 'a special-purpose address, not a public one';
}

const SETTINGS = 'WEBHOOK_ALLOW_HOSTS, WEBHOOK_ALLOW_RANGES, WEBHOOK_ALLOW_PRIVATE';

/**
 * What is wrong with sending to `url` that the URL alone shows: credentials in it, or a literal
 * address the policy refuses. Null when nothing is; a name is checked when it is resolved.
 */
export function urlRefusal(url: URL, policy: DestinationPolicy): string | null {
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@); send them with the authorization parameter';
  const host = hostOf(url);
  if (!net.isIP(host) || policy.allowHosts.has(host)) return null;
  const why = refusal(host, policy);
  return why && `${host} is ${why}, which webhooks may not reach (see ${SETTINGS})`;
}

/** The lookup's refusal: the connection is never made. */
export class RefusedDestination extends Error {
  override readonly name = 'RefusedDestination';
  readonly code = 'EFANIONREFUSED';
}

/**
 * A `lookup` for the socket that resolves `hostname` as Node would, then refuses the connection
 * when any of its addresses is one the policy refuses (a name with both a public and a loopback
 * address is not half-trusted).
 */
export function guardedLookup(policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const why = refusal(a.address, policy);
        if (why) return callback(new RefusedDestination(`${hostname} resolves to ${a.address}, ${why}`), '', 0);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The sentence a refused send shows in `delivery.lastError`: the rule, not what the name resolved to. */
export function refusedBySend(host: string): string {
  return `refused by policy: ${host} is not a public address (see ${SETTINGS})`;
}
