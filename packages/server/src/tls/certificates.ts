import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import forge from 'node-forge';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/private-files.js';

/** What the HTTPS listener serves, and where clients find the CA that vouches for it (unset for a user's own pair). */
export interface TlsMaterial {
  key: string;
  /** The server certificate, followed by the CA's when svc made them. */
  cert: string;
  caFile?: string;
  /** True when the CA under the data dir was made again (it did not permit a host now asked for). */
  caReplaced?: boolean;
}

export interface TlsSettings {
  dataDir: string;
  /** A certificate and key the user gives (PEM files); both or neither. */
  certFile?: string;
  keyFile?: string;
  /** Names and addresses the server certificate must cover besides localhost, 127.0.0.1 and ::1. */
  hosts: readonly string[];
}

const CA_DAYS = 3650;
const SERVER_DAYS = 397;
/** A server certificate this close to expiry, or not covering every host asked, is made again at start. */
const RENEW_WITHIN_MS = 30 * 86_400_000;

/**
 * The TLS pair for the HTTPS listener: the user's own if given; otherwise a CA and a server certificate made on first
 * start under `<data dir>/tls` (kept, so kubeconfigs written with the CA stay valid across restarts). The server
 * certificate is made again, by the same CA, when it nears expiry or does not name a host it must.
 */
export async function loadTlsMaterial(settings: TlsSettings): Promise<TlsMaterial> {
  if (settings.certFile || settings.keyFile) {
    if (!settings.certFile || !settings.keyFile) throw new Error('SVC_TLS_CERT and SVC_TLS_KEY go together: give both');
    return { cert: await readFile(settings.certFile, 'utf8'), key: await readFile(settings.keyFile, 'utf8') };
  }
  const files = tlsFilesOf(settings.dataDir);
  await mkdir(files.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const names = subjectAltNames(['localhost', '127.0.0.1', '::1', ...settings.hosts]);
  let ca = await readCertificatePair(files.caCert, files.caKey);
  let caReplaced = false;
  if (!ca || !permits(ca.cert, names)) {
    // The CA may vouch only for the names it is made for (a copy of its key could sign for no other site); one
    // made for other names is replaced, and clients must trust the new ca.crt.
    caReplaced = ca !== undefined;
    ca = makeCertificate({ commonName: 'svc local CA', days: CA_DAYS, names });
    await writeCertificatePair(files.caCert, files.caKey, ca);
  }
  let server = await readCertificatePair(files.cert, files.key);
  if (
    !server ||
    caReplaced ||
    !covers(server.cert, names) ||
    Date.parse(new X509Certificate(server.cert).validTo) - Date.now() < RENEW_WITHIN_MS
  ) {
    server = makeCertificate({ commonName: 'svc', days: SERVER_DAYS, names, issuer: ca });
    await writeCertificatePair(files.cert, files.key, server);
  }
  return { key: server.key, cert: server.cert + ca.cert, caFile: files.caCert, caReplaced };
}

/** Where svc keeps the pair it makes: `<data dir>/tls` (a backup carries the CA's, cli/tls-backup.ts). */
export function tlsFilesOf(dataDir: string) {
  const dir = path.join(dataDir, 'tls');
  return {
    dir,
    caCert: path.join(dir, 'ca.crt'),
    caKey: path.join(dir, 'ca.key'),
    cert: path.join(dir, 'server.crt'),
    key: path.join(dir, 'server.key'),
  };
}

export type AltName = { type: 'dns'; value: string } | { type: 'ip'; value: string };

/** The subject alternative names for a list of hosts: addresses as IP entries, names as DNS, each once. Pure. */
export function subjectAltNames(hosts: readonly string[]): AltName[] {
  const seen = new Set<string>();
  const names: AltName[] = [];
  for (const raw of hosts) {
    const host = raw
      .trim()
      .replace(/^\[(.*)\]$/, '$1')
      .toLowerCase();
    // A wildcard listen address names no host a client could dial.
    if (host === '' || host === '0.0.0.0' || host === '::' || seen.has(host)) continue;
    seen.add(host);
    names.push(isIP(host) ? { type: 'ip', value: host } : { type: 'dns', value: host });
  }
  return names;
}

/**
 * Whether a CA's name constraints permit every name (RFC 5280 4.2.1.10: a DNS name is the base or below it, an address
 * is inside the base's range). A CA without them, as svc made before it set them, permits any name and is kept.
 * Written here because node-forge reads the extension but offers no check of a name against it, and Node neither.
 */
export function permits(caPem: string, names: readonly AltName[]): boolean {
  const constraints = forge.pki.certificateFromPem(caPem).getExtension('nameConstraints') as {
    permittedSubtrees?: Array<{ type: number; value: string }>;
  } | null;
  const permitted = constraints?.permittedSubtrees;
  if (!permitted) return true;
  return names.every((name) =>
    permitted.some((base) =>
      name.type === 'dns'
        ? base.type === 2 &&
          (name.value === base.value.toLowerCase() || name.value.endsWith(`.${base.value.toLowerCase()}`))
        : base.type === 7 && inRange(ipBytes(name.value), base.value),
    ),
  );
}

/** An IPv4 or IPv6 address as forge's byte string ('' when it is none); forge's typings omit the function. */
function ipBytes(address: string): string {
  return (forge.util as unknown as { bytesFromIP(ip: string): string | null }).bytesFromIP(address) ?? '';
}

/** Whether address bytes fall in an address-and-mask pair of bytes (as a name constraint holds an iPAddress). */
function inRange(address: string, range: string): boolean {
  if (range.length !== address.length * 2) return false;
  for (let i = 0; i < address.length; i++) {
    const mask = range.charCodeAt(address.length + i);
    if ((address.charCodeAt(i) & mask) !== (range.charCodeAt(i) & mask)) return false;
  }
  return true;
}

/**
 * A critical nameConstraints extension permitting exactly `names`: each DNS name (and the names below it, as RFC 5280
 * reads a DNS base) and each address alone (a full mask). node-forge writes no such extension itself, so its value is
 * built here from ASN.1.
 */
function nameConstraints(names: readonly AltName[]): object {
  const { asn1 } = forge;
  const generalName = (name: AltName) => {
    if (name.type === 'dns') return asn1.create(asn1.Class.CONTEXT_SPECIFIC, 2, false, name.value);
    const bytes = ipBytes(name.value);
    return asn1.create(asn1.Class.CONTEXT_SPECIFIC, 7, false, bytes + '\xff'.repeat(bytes.length));
  };
  const subtree = (name: AltName) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [generalName(name)]);
  const permitted = asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, names.map(subtree));
  return {
    id: '2.5.29.30',
    critical: true,
    value: asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [permitted]),
  };
}

function covers(certPem: string, names: readonly AltName[]): boolean {
  const cert = new X509Certificate(certPem);
  return names.every((n) => (n.type === 'ip' ? cert.checkIP(n.value) : cert.checkHost(n.value)) !== undefined);
}

export interface CertificatePair {
  cert: string;
  key: string;
}

export async function readCertificatePair(certFile: string, keyFile: string): Promise<CertificatePair | undefined> {
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function writeCertificatePair(certFile: string, keyFile: string, pair: CertificatePair): Promise<void> {
  // Like everything under the data dir, the owner's alone (util/private-files.ts), the certificates too.
  await writeFile(keyFile, pair.key, { mode: PRIVATE_FILE_MODE });
  await writeFile(certFile, pair.cert, { mode: PRIVATE_FILE_MODE });
}

/**
 * An X.509 certificate: a CA (self-signed, may sign servers for `names` only) when no issuer is given, else a server
 * certificate for `names` signed by the issuer. node-forge builds the certificate (Node has no API for that); the RSA key comes from
 * Node's own crypto, which is fast.
 */
function makeCertificate(options: {
  commonName: string;
  days: number;
  names?: AltName[];
  issuer?: CertificatePair;
}): CertificatePair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + options.days * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: options.commonName }]);
  const isCa = !options.issuer;
  const issuerCert = options.issuer ? forge.pki.certificateFromPem(options.issuer.cert) : cert;
  cert.setIssuer(issuerCert.subject.attributes);
  const extensions: object[] = isCa
    ? [
        { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
        nameConstraints(options.names ?? []),
      ]
    : [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: (options.names ?? []).map((n) =>
            n.type === 'ip' ? { type: 7, ip: n.value } : { type: 2, value: n.value },
          ),
        },
      ];
  extensions.push({ name: 'subjectKeyIdentifier' });
  if (!isCa)
    extensions.push({
      name: 'authorityKeyIdentifier',
      keyIdentifier: issuerCert.generateSubjectKeyIdentifier().getBytes(),
    });
  cert.setExtensions(extensions);
  const signer = forge.pki.privateKeyFromPem(options.issuer?.key ?? privateKey) as forge.pki.rsa.PrivateKey;
  cert.sign(signer, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: privateKey };
}
