// A self-signed serving certificate for the secure metrics endpoint, made at start when no
// certificate is mounted (controller-runtime does the same). Node can make keys and sign, but not
// build an X.509 certificate; the libraries that do (node-forge, @peculiar/x509 with pkijs) would
// add about a megabyte to the bundle that every worker image carries, for one fixed structure of a
// dozen DER fields. So it is written here, and its output is checked by Node's own X.509 parser
// and by real TLS handshakes in the tests.
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

// ---- DER, the few types a certificate needs ----------------------------------------------------

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from([tag]), len(body.length), body]);
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, body: Buffer) => tlv(0xa0 + n, body);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));

function integer(b: Buffer): Buffer {
  // Positive: a leading 0 when the high bit is set.
  return tlv(0x02, b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(d: Date): Buffer {
  // UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5).
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand "::" and write eight 16-bit groups.
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

// ---- the certificate ---------------------------------------------------------------------------

const ECDSA_SHA256 = '1.2.840.10045.4.3.2';

export interface SelfSigned {
  /** PEM */
  cert: string;
  /** PEM (PKCS#8) */
  key: string;
  notAfter: Date;
}

/**
 * An ECDSA P-256 certificate for `hosts` (DNS names and IP addresses, in subjectAltName), valid
 * from an hour ago (clock skew) for `days`, for TLS server authentication only.
 */
export function selfSignedCertificate(hosts: string[], days = 365, now = new Date()): SelfSigned {
  if (!hosts.length) throw new Error('a certificate needs at least one host');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(set(seq(oid('2.5.4.3'), utf8(hosts[0]!))));
  const notBefore = new Date(now.getTime() - 3600_000);
  const notAfter = new Date(now.getTime() + days * 86400_000);
  const san = seq(
    ...hosts.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii')))),
  );
  const extensions = explicit(
    3,
    seq(
      seq(oid('2.5.29.19'), bool(true), octets(seq())), // basicConstraints: not a CA
      seq(oid('2.5.29.15'), bool(true), octets(tlv(0x03, Buffer.from([0x07, 0x80])))), // digitalSignature
      seq(oid('2.5.29.37'), octets(seq(oid('1.3.6.1.5.5.7.3.1')))), // extKeyUsage: serverAuth
      seq(oid('2.5.29.17'), octets(san)),
    ),
  );
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    seq(oid(ECDSA_SHA256)),
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    spki(publicKey),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, seq(oid(ECDSA_SHA256)), bits(signature));
  return {
    cert: pem('CERTIFICATE', der),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    notAfter,
  };
}

function spki(k: KeyObject): Buffer {
  return k.export({ type: 'spki', format: 'der' });
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64.replace(/\n$/, '')}\n-----END ${label}-----\n`;
}
