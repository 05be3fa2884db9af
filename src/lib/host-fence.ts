import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/*
 * Where the server's own outgoing requests (webhook deliveries) may go (docs/decisions/0029).
 * It sits below the areas that use it: the command line checks the lists, the server builds the
 * fence, each workspace carries it, and the webhook sender asks it once the address is known.
 */

/** The flags that fence deliveries, named in every refusal they cause. */
export type FenceFlag = '--webhook-allow' | '--webhook-deny';

/** A host name; a leading dot stands for the name and every name under it. */
const NAME_ENTRY = /^\.?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

type Entry = { text: string; name: string; domain: boolean } | { text: string; range: [Address, number] };

/** An address without IPv6 brackets or a zone (`fe80::1%eth0`), as BlockList and isIP take it. */
function bareAddress(address: string): string {
  const unbracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zone = unbracketed.indexOf('%');
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

function familyOf(address: string): 'ipv4' | 'ipv6' | undefined {
  const family = isIP(address);
  return family === 4 ? 'ipv4' : family === 6 ? 'ipv6' : undefined;
}

/**
 * An address in any numeric spelling ipaddr.js reads (`127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`,
 * `::ffff:127.0.0.1`, as the WHATWG URL parser reads a host), or undefined when it is none.
 */
function parseAddress(text: string): Address | undefined {
  if (text === '' || !ipaddr.isValid(text)) return undefined;
  const address = ipaddr.parse(text);
  // An IPv4-mapped IPv6 address is the IPv4 address: the connection goes there.
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

const THIS_HOST_V4 = ipaddr.parseCIDR('0.0.0.0/8');

/**
 * Every spelling of where a connection to `address` goes, as the lists compare them: the address
 * itself, IPv4-mapped ones as IPv4, and "this host" (`0.0.0.0/8`, `::`), which a connection reaches
 * as loopback, also as `127.0.0.1` or `::1`. So `--webhook-deny 127.0.0.0/8,::1` covers
 * `http://0.0.0.0/`, `http://0/` and `http://[::]/` (issue 35).
 */
function spellings(address: string): Address[] {
  const parsed = parseAddress(address);
  if (parsed === undefined) return [];
  if (parsed.kind() === 'ipv4' && parsed.match(THIS_HOST_V4)) return [parsed, ipaddr.parse('127.0.0.1')];
  if (parsed.kind() === 'ipv6' && parsed.range() === 'unspecified') return [parsed, ipaddr.parse('::1')];
  return [parsed];
}

function inRange(address: Address, [base, prefix]: [Address, number]): boolean {
  return address.kind() === base.kind() && address.match(base, prefix);
}

/** Lower case, without a trailing dot (`hooks.internal.` is `hooks.internal`). */
function normalizeName(name: string): string {
  const lower = name.toLowerCase();
  return lower.length > 1 && lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** ` (<host>)` of a URL, or nothing when it has none that parses. */
function urlHost(text: string): string {
  try {
    const { host } = new URL(text);
    return host === '' ? '' : ` (${host})`;
  } catch {
    return '';
  }
}

function parseEntry(raw: string): Entry | string {
  const text = raw.trim();
  if (text === '') return 'an entry is empty';
  // Only the host is quoted back: the URL's user info or query may hold a password, and this message is printed.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return `an entry is a URL; give its host name alone${urlHost(text)}`;
  if (text.startsWith('*.')) return `'${text}' is a wildcard; write '${text.slice(1)}' for a domain and every name under it`;
  const slash = text.indexOf('/');
  const address = parseAddress(bareAddress(slash === -1 ? text : text.slice(0, slash)));
  if (address !== undefined) {
    const bits = address.kind() === 'ipv4' ? 32 : 128;
    // A mapped range was written in IPv6's 128 bits: its prefix counts the 96 bits of ::ffff: too.
    const mapped = address.kind() === 'ipv4' && isIP(bareAddress(slash === -1 ? text : text.slice(0, slash))) === 6;
    const writtenBits = mapped ? 128 : bits;
    const prefixText = slash === -1 ? String(writtenBits) : text.slice(slash + 1);
    const prefix = Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText) || prefix > writtenBits) return `'${text}' has no prefix length from 0 to ${writtenBits} after its '/'`;
    if (mapped && prefix < 96) return `'${text}' spans more than the IPv4-mapped addresses (::ffff:0:0/96); give an IPv4 range or a prefix of 96 or more`;
    return { text, range: [address, mapped ? prefix - 96 : prefix] };
  }
  if (slash !== -1) return `'${text}' is not an address range (an IPv4 or IPv6 address, '/', a prefix length)`;
  const name = normalizeName(text);
  if (/:\d+$/.test(name)) return `'${text}' has a port; give the host name alone (it covers every port)`;
  if (!NAME_ENTRY.test(name)) return `'${text}' is neither a host name nor an IP address or range`;
  return name.startsWith('.') ? { text, name: name.slice(1), domain: true } : { text, name, domain: false };
}

/**
 * One list of `--webhook-allow` or `--webhook-deny`: host names (a leading dot for a domain and
 * every name under it, as `--allowed-hosts` has it), IP addresses and CIDR ranges, IPv4 or IPv6.
 * Names match the URL's host as written; addresses and ranges match the address the request
 * would connect to, so a name that resolves into a denied range is denied too. Addresses are read
 * in every numeric spelling and compared as where they lead (`spellings`): an entry and an
 * address never differ by how they were written.
 */
export class HostList {
  private constructor(private readonly entries: readonly Entry[]) {}

  /** The list, or why an entry is not one: the command line and the server refuse to start on it. */
  static parse(entries: readonly string[]): HostList | string {
    const parsed: Entry[] = [];
    for (const raw of entries) {
      const entry = parseEntry(raw);
      if (typeof entry === 'string') return entry;
      parsed.push(entry);
    }
    return new HostList(parsed);
  }

  /** The entries that parse, the others left out (names another check has already vetted for its own purpose). */
  static ofValid(entries: readonly string[]): HostList {
    return new HostList(entries.map(parseEntry).filter((entry): entry is Entry => typeof entry !== 'string'));
  }

  /** The entry that covers a request to `hostname` connecting to `address`, or undefined. */
  match(hostname: string, address: string): string | undefined {
    const name = normalizeName(bareAddress(hostname));
    const addresses = spellings(bareAddress(address));
    for (const entry of this.entries) {
      if ('range' in entry) {
        const { range } = entry;
        if (addresses.some((candidate) => inRange(candidate, range))) return entry.text;
      } else if (name === entry.name || (entry.domain && name.endsWith(`.${entry.name}`))) {
        return entry.text;
      }
    }
    return undefined;
  }

  toString(): string {
    return this.entries.map((entry) => entry.text).join(',');
  }
}

/** Addresses that reach this machine whatever its interfaces: loopback, and "this host" (0.0.0.0, ::). */
const ALWAYS_LOCAL = new BlockList();
ALWAYS_LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
ALWAYS_LOCAL.addSubnet('0.0.0.0', 8, 'ipv4');
ALWAYS_LOCAL.addAddress('::1', 'ipv6');
ALWAYS_LOCAL.addAddress('::', 'ipv6');

/** An address of this machine: loopback, unspecified, or one of its interfaces' (read each time: they come and go). */
function isLocalAddress(address: string): boolean {
  const bare = bareAddress(address);
  const family = familyOf(bare);
  if (family === undefined) return false;
  // BlockList matches IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) against the IPv4 rules.
  if (ALWAYS_LOCAL.check(bare, family)) return true;
  for (const addresses of Object.values(networkInterfaces())) {
    for (const own of addresses ?? []) if (bareAddress(own.address) === bare) return true;
  }
  return false;
}

export interface HostFenceOptions {
  /** `--webhook-allow`: when given, only these hosts and ranges. */
  allow?: readonly string[];
  /** `--webhook-deny`: never these hosts and ranges (checked before `allow`). */
  deny?: readonly string[];
  /** Names that reach this server (`--allowed-hosts`; a leading dot for a domain): at its own port, they are the server itself. */
  ownNames?: readonly string[];
}

/** Where a request may not go, and why. */
export interface Refusal {
  /** What refused it: the server itself (no flag turns that off), or the flag. */
  by: 'self' | FenceFlag;
  reason: string;
}

/**
 * The fence of the server's own outgoing requests. The server itself is always refused: a
 * webhook aimed at its own `/__control/reset` would let any workspace reset the default one,
 * and one aimed at its `/v1` turns every event into another request of the mock to itself. "Itself"
 * is the port it listens on at any address of this machine (loopback, 0.0.0.0, its interfaces),
 * or at a name `--allowed-hosts` says reaches it. Then `--webhook-deny` refuses, and
 * `--webhook-allow`, when given, lets through only what it lists.
 */
export class HostFence {
  private readonly allow: HostList | undefined;
  private readonly deny: HostList | undefined;
  private readonly ownNames: HostList;
  private readonly ownPorts = new Set<number>();

  constructor({ allow, deny, ownNames = [] }: HostFenceOptions = {}) {
    this.allow = allow === undefined ? undefined : HostFence.list('webhookAllow', allow);
    this.deny = deny === undefined ? undefined : HostFence.list('webhookDeny', deny);
    this.ownNames = HostList.ofValid(ownNames);
  }

  private static list(option: string, entries: readonly string[]): HostList {
    const list = HostList.parse(entries);
    if (typeof list === 'string') throw new Error(`${option}: ${list}`);
    return list;
  }

  /** The server listens on this port now (a server that never listens can be reached by no request of its own). */
  listeningOn(port: number): void {
    this.ownPorts.add(port);
  }

  /**
   * Why a request to `hostname` (the URL's host, as written) on `port` may not connect to
   * `address` (what the name resolved to, or the host itself when it is an address), or null.
   * Without an address, what the name alone decides: asked before the lookup, so a denied name
   * is never even resolved.
   */
  refusal(hostname: string, port: number, address?: string): Refusal | null {
    const name = normalizeName(bareAddress(hostname));
    const shown = `${hostname}:${port}`;
    const via = address === undefined || bareAddress(address) === bareAddress(hostname) ? '' : ` (${address})`;
    // localhost and its subdomains are loopback whatever a resolver says (RFC 6761).
    // Read only at the server's own port: the interfaces' addresses cost about 0.1 ms to read.
    const local = () => name === 'localhost' || name.endsWith('.localhost') || (address !== undefined && isLocalAddress(address));
    if (this.ownPorts.has(port) && (local() || this.ownNames.match(hostname, address ?? '') !== undefined)) {
      return { by: 'self', reason: `refused: ${shown}${via} is this mock server itself, which never takes its own webhooks (its control plane, dashboard and API)` };
    }
    const denied = this.deny?.match(hostname, address ?? '');
    if (denied !== undefined) return { by: '--webhook-deny', reason: `refused by --webhook-deny ${denied}: ${shown}${via}` };
    if (address !== undefined && this.allow !== undefined && this.allow.match(hostname, address) === undefined) {
      return { by: '--webhook-allow', reason: `refused by --webhook-allow ${this.allow.toString()}: ${shown}${via} is not in it` };
    }
    return null;
  }
}
