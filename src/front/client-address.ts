/**
 * The client's own address behind reverse proxies the deployment trusts
 * (TRUST_PROXY). A proxy appends the address it received the request from
 * to `X-Forwarded-For` (or `Forwarded: for=`); everything left of that is
 * whatever the client wrote. So the hops are read from the right, past every
 * trusted proxy, and the first untrusted one is the client: the right-most
 * untrusted hop, never the left-most (RFC 7239 §7.4, MDN X-Forwarded-For
 * "Selecting an IP address"). A request whose socket peer is not a trusted
 * proxy is its own client, whatever headers it sends.
 */
import { BlockList, isIP } from 'node:net'

export interface TrustedProxies {
  /** The setting as given, for the start-up log. */
  readonly spec: string
  has(address: string): boolean
}

/** No proxy trusted: every request's client is its socket peer (the default). */
export const NO_TRUSTED_PROXIES: TrustedProxies = { spec: '', has: () => false }

/**
 * Parses `TRUST_PROXY`: addresses and CIDR ranges separated by commas
 * (`127.0.0.1/8,10.0.0.0/8,::1`). Throws on anything else, naming the entry.
 */
export function parseTrustedProxies(spec: string): TrustedProxies {
  const entries = spec.split(',').map((s) => s.trim()).filter(Boolean)
  if (entries.length === 0) return NO_TRUSTED_PROXIES
  const list = new BlockList()
  for (const entry of entries) {
    const [address, prefixText, extra] = entry.split('/')
    const plain = plainAddress(address)
    const family = isIP(plain)
    const max = family === 4 ? 32 : 128
    const prefix = prefixText === undefined ? max : Number(prefixText)
    if (!family || extra !== undefined || !/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) {
      throw new Error(`TRUST_PROXY: ${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR range (such as 10.0.0.0/8 or ::1)`)
    }
    list.addSubnet(plain, prefix, family === 4 ? 'ipv4' : 'ipv6')
  }
  return {
    spec: entries.join(','),
    has(address) {
      const plain = plainAddress(address)
      const family = isIP(plain)
      return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6')
    },
  }
}

/**
 * The client's address: the socket peer, or, when that peer is a trusted
 * proxy, the right-most hop of the forwarding headers that is not one.
 * `forwardedFor` and `forwarded` hold every line of each header, in order.
 */
export function clientAddressOf(peer: string, forwardedFor: readonly string[], forwarded: readonly string[], trusted: TrustedProxies): string {
  const socket = plainAddress(peer)
  if (!trusted.has(socket)) return socket
  // X-Forwarded-For is what nginx, Caddy and HAProxy write; Forwarded is read where it alone is sent.
  const hops = forwardedFor.length > 0 ? forwardedFor.flatMap((line) => line.split(',')) : forwarded.flatMap(forwardedForValues)
  let client = socket
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i])
    // A hop no proxy could have written (`unknown`, an obfuscated name, garbage): stop at the last address that is certain.
    if (!isIP(hop)) return client
    client = hop
    if (!trusted.has(hop)) return hop
  }
  return client
}

/** The `for=` values of one Forwarded line (`for=192.0.2.1;proto=https, for="[2001:db8::1]:4711"`). */
function forwardedForValues(line: string): string[] {
  const values: string[] = []
  for (const element of line.split(',')) {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=')
      if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === 'for') values.push(pair.slice(eq + 1).trim().replace(/^"|"$/g, ''))
    }
  }
  return values
}

/**
 * An address as text without decoration: brackets and a port removed
 * (`[::1]:80`, `1.2.3.4:80`), an IPv4-mapped IPv6 address as IPv4, and
 * uWebSockets.js's zero-padded IPv6 text in its short form.
 */
export function plainAddress(text: string): string {
  let s = text.trim()
  if (s.startsWith('[')) s = s.slice(1, s.indexOf(']') > 0 ? s.indexOf(']') : undefined)
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'))
  if (isIP(s) === 6) {
    const mapped = /^(?:0{1,4}:){5}ffff:(.+)$/i.exec(s) ?? /^::ffff:(.+)$/i.exec(s)
    if (mapped) {
      const tail = mapped[1]
      if (isIP(tail) === 4) return tail
      const [hi, lo] = tail.split(':').map((h) => parseInt(h, 16))
      if (lo !== undefined) return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.')
    }
    return shortIpv6(s)
  }
  return s
}

/** `0000:0000:…:0001` as `::1`: one spelling for each address, so logs and throttle keys agree. */
function shortIpv6(address: string): string {
  if (address.includes('.')) return address.toLowerCase()
  const [head, tail] = address.toLowerCase().split('::')
  const left = head ? head.split(':') : []
  const right = tail === undefined ? [] : tail ? tail.split(':') : []
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  const words = groups.map((g) => String(parseInt(g, 16).toString(16)))
  // The longest run of two or more zero groups becomes `::` (RFC 5952 §4.2).
  let best = -1
  let bestLength = 1
  for (let i = 0; i < words.length; ) {
    let j = i
    while (j < words.length && words[j] === '0') j++
    if (j - i > bestLength) (best = i), (bestLength = j - i)
    i = j === i ? i + 1 : j
  }
  if (best < 0) return words.join(':')
  return `${words.slice(0, best).join(':')}::${words.slice(best + bestLength).join(':')}`
}

/**
 * The client's address of a request whose headers are read once here (routes
 * that do not walk them anyway), and whether it carried forwarding headers.
 */
export function requestClient(peer: string, req: { forEach(cb: (name: string, value: string) => void): void }, trusted: TrustedProxies): { client: string; forwarding: boolean } {
  const forwardedFor: string[] = []
  const forwarded: string[] = []
  req.forEach((name, value) => {
    if (name === 'x-forwarded-for') forwardedFor.push(value)
    else if (name === 'forwarded') forwarded.push(value)
  })
  return { client: clientAddressOf(peer, forwardedFor, forwarded, trusted), forwarding: forwardedFor.length + forwarded.length > 0 }
}

export function isLoopback(address: string): boolean {
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address
  return plain === '::1' || plain === '0000:0000:0000:0000:0000:0000:0000:0001' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain)
}
