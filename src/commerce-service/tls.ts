/**
 * HTTPS for local development (COMMERCE_HTTPS=1): storefronts reach production only as
 * `https://<host>` (the reference storefront builds its base URL that way), so the service can
 * serve TLS with a certificate it makes itself, nothing downloaded and no openssl needed.
 *
 * A local certificate authority (ECDSA P-256, ten years) is made once and kept in `dir`
 * (`ca.pem`, `ca-key.pem`): a developer trusts it once (NODE_EXTRA_CA_CERTS for Node clients, the
 * system or browser store for a browser). Each start signs a fresh server certificate (one year)
 * for localhost, 127.0.0.1, ::1 and the names given. The certificates are written in DER by hand
 * below: node:crypto signs and reads X.509 but does not build it.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface DevelopmentCertificate {
  /** The server's certificate and the authority's, PEM (the chain a server sends). */
  cert: string;
  /** The server's private key, PEM. */
  key: string;
  /** The authority's certificate, PEM: what a client trusts. */
  ca: string;
  /** Where the authority's certificate is kept. */
  caPath: string;
}

// DER: tag, length, content.
function der(tag: number, ...parts: Buffer[]): Buffer {
  const content = Buffer.concat(parts);
  const n = content.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const seq = (...parts: Buffer[]) => der(0x30, ...parts);
const set = (...parts: Buffer[]) => der(0x31, ...parts);
const explicit = (n: number, ...parts: Buffer[]) => der(0xa0 + n, ...parts);
const octets = (value: Buffer) => der(0x04, value);
const utf8 = (text: string) => der(0x0c, Buffer.from(text, 'utf8'));
const bool = (value: boolean) => der(0x01, Buffer.from([value ? 0xff : 0]));
const bits = (value: Buffer, unused = 0) => der(0x03, Buffer.from([unused]), value);

function integer(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start += 1;
  const trimmed = value.subarray(start);
  return der(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128))
      chunk.unshift(0x80 | (v & 0x7f));
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(at: Date): Buffer {
  const iso = at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return at.getUTCFullYear() < 2050
    ? der(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : der(0x18, Buffer.from(`${iso}Z`));
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const name = (commonName: string) =>
  seq(
    set(seq(oid('2.5.4.10'), utf8('commerce-gateway'))),
    set(seq(oid('2.5.4.3'), utf8(commonName))),
  );
const extension = (id: string, critical: boolean, value: Buffer) =>
  seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

/** The key identifier of a public key: SHA-1 of its subjectPublicKey bits (RFC 5280 §4.2.1.2). */
function keyId(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // The last 65 bytes of a P-256 SubjectPublicKeyInfo are the uncompressed point.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function subjectAltNames(hosts: readonly string[]): Buffer {
  const names = hosts.map((host) => {
    const version = isIP(host);
    if (version === 4) return der(0x87, Buffer.from(host.split('.').map(Number)));
    if (version === 6) return der(0x87, ipv6Bytes(host));
    return der(0x82, Buffer.from(host, 'ascii'));
  });
  return seq(...names);
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = groups(tail);
  const all = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  const out = Buffer.alloc(16);
  for (const [i, group] of all.entries()) out.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return out;
}

interface CertificateRequest {
  subject: string;
  subjectKey: KeyObject;
  issuer: string;
  issuerKey: KeyObject;
  issuerPublicKey: KeyObject;
  days: number;
  authority: boolean;
  hosts?: readonly string[];
}

function certificate(request: CertificateRequest): string {
  const now = Date.now();
  const extensions = request.authority
    ? [
        extension('2.5.29.19', true, seq(bool(true))),
        // keyCertSign and cRLSign, digitalSignature: 1000 0110, one unused bit.
        extension('2.5.29.15', true, bits(Buffer.from([0x86]), 1)),
        extension('2.5.29.14', false, octets(keyId(request.subjectKey))),
      ]
    : [
        extension('2.5.29.19', true, seq()),
        // digitalSignature: 1000 0000, seven unused bits.
        extension('2.5.29.15', true, bits(Buffer.from([0x80]), 7)),
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
        extension('2.5.29.17', false, subjectAltNames(request.hosts ?? [])),
        extension('2.5.29.14', false, octets(keyId(request.subjectKey))),
        extension('2.5.29.35', false, seq(der(0x80, keyId(request.issuerPublicKey)))),
      ];
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(Buffer.concat([Buffer.from([0x01]), randomBytes(15)])),
    ECDSA_SHA256,
    name(request.issuer),
    seq(time(new Date(now - 3_600_000)), time(new Date(now + request.days * 86_400_000))),
    name(request.subject),
    request.subjectKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: request.issuerKey, dsaEncoding: 'der' });
  const body = seq(tbs, ECDSA_SHA256, bits(signature)).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;
}

const AUTHORITY = 'commerce-gateway local development CA';

/**
 * The authority kept in `dir` (made when missing or expiring within a month), and a fresh server
 * certificate it signed for localhost, 127.0.0.1, ::1 and `hosts`.
 */
export function developmentCertificate(
  dir: string,
  hosts: readonly string[] = [],
): DevelopmentCertificate {
  const caPath = join(dir, 'ca.pem');
  const caKeyPath = join(dir, 'ca-key.pem');
  let ca: string | undefined;
  let caKey: KeyObject | undefined;
  if (existsSync(caPath) && existsSync(caKeyPath)) {
    const kept = readFileSync(caPath, 'utf8');
    if (Date.parse(new X509Certificate(kept).validTo) > Date.now() + 30 * 86_400_000) {
      ca = kept;
      caKey = createPrivateKey(readFileSync(caKeyPath, 'utf8'));
    }
  }
  if (ca === undefined || caKey === undefined) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    caKey = pair.privateKey;
    ca = certificate({
      subject: AUTHORITY,
      subjectKey: pair.publicKey,
      issuer: AUTHORITY,
      issuerKey: pair.privateKey,
      issuerPublicKey: pair.publicKey,
      days: 3650,
      authority: true,
    });
    mkdirSync(dir, { recursive: true });
    // Each file appears whole (written aside, then renamed), the key first: a process starting
    // beside this one never reads half a file.
    const suffix = `.${process.pid}.tmp`;
    writeFileSync(caKeyPath + suffix, caKey.export({ type: 'pkcs8', format: 'pem' }), {
      mode: 0o600,
    });
    renameSync(caKeyPath + suffix, caKeyPath);
    writeFileSync(caPath + suffix, ca);
    renameSync(caPath + suffix, caPath);
  }
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const names = [...new Set(['localhost', '127.0.0.1', '::1', ...hosts])];
  const cert = certificate({
    subject: 'localhost',
    subjectKey: server.publicKey,
    issuer: AUTHORITY,
    issuerKey: caKey,
    issuerPublicKey: createPublicKey(caKey),
    days: 365,
    authority: false,
    hosts: names,
  });
  return {
    cert: cert + ca,
    key: server.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    ca,
    caPath,
  };
}
