/**
 * Identifiers and secrets. Secrets (API keys `svc_sk_`, setup tokens `svc_st_`)
 * are `<prefix><id>_<secret>`: the id finds the record, and the SHA-256 of the
 * whole token is compared with the stored digest in constant time. Only the
 * digest is stored; the plaintext is shown once, to whoever minted it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** API key, setup token, dashboard session (a cookie), invite link. */
export type SecretKind = 'sk' | 'st' | 'ds' | 'iv'

const SECRET_RE = /^svc_(sk|st|ds|iv)_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex')
}

/** Opaque ids such as `prj_3f9a…`. 96 random bits: unguessable and collision-free at any realistic count. */
export function newId(prefix: string): string {
  return `${prefix}_${randomHex(12)}`
}

/** `svc_pk_` + 32 lowercase hex: not a secret (it sits in page source) but unguessable, so keys cannot be enumerated. */
export function newPublicKey(): string {
  return `svc_pk_${randomHex(16)}`
}

export function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

export interface MintedSecret {
  /** Record id (not secret), also embedded in the token. */
  id: string
  /** The plaintext; returned to the caller once, never stored. */
  token: string
  /** SHA-256 of the token, hex: what the store keeps. */
  digestHex: string
}

/** 256 random bits of secret. */
export function mintSecret(kind: SecretKind): MintedSecret {
  const id = randomHex(6)
  const token = `svc_${kind}_${id}_${randomBytes(32).toString('base64url')}`
  return { id, token, digestHex: digest(token).toString('hex') }
}

export interface ParsedSecret {
  kind: SecretKind
  id: string
  token: string
}

export function parseSecret(token: string): ParsedSecret | undefined {
  const match = SECRET_RE.exec(token)
  if (!match) return undefined
  return { kind: match[1] as SecretKind, id: match[2], token }
}

/** Constant-time comparison of a presented token with a stored hex digest (both 32 bytes). */
export function secretMatches(token: string, storedDigestHex: string): boolean {
  const stored = Buffer.from(storedDigestHex, 'hex')
  const presented = digest(token)
  return stored.length === presented.length && timingSafeEqual(stored, presented)
}

/** Shown in key listings: prefix and last four characters. */
export function maskSecret(kind: SecretKind, lastFour: string): string {
  return `svc_${kind}_…${lastFour}`
}
