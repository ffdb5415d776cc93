/**
 * The CA svc made under `<data dir>/tls` (tls/certificates.ts) travels with a backup, so that the clients trusting it
 * (kubeconfigs, which inline it; `svc login --certificate-authority`) trust the restored server as they did the old
 * one. Only the CA: the server certificate is made again from it at the first start. A server given its own pair
 * (SVC_TLS_CERT, SVC_TLS_KEY) or never started with HTTPS has none, and the backup carries none.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type CertificatePair, readCertificatePair, tlsFilesOf, writeCertificatePair } from '../tls/certificates.js';
import { PRIVATE_DIR_MODE } from '../util/private-files.js';

export async function readAuthority(dataDir: string): Promise<CertificatePair | undefined> {
  const files = tlsFilesOf(dataDir);
  return readCertificatePair(files.caCert, files.caKey);
}

/** What is wrong with a CA from a backup: it must be a CA certificate, and the key its own. */
export function authorityProblems(pair: CertificatePair): string[] {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.cert);
  } catch {
    return ['its certificate is not a PEM X.509 certificate'];
  }
  if (!cert.ca) return ['its certificate is not a CA'];
  try {
    if (!cert.checkPrivateKey(createPrivateKey(pair.key))) return ["its key is not the certificate's"];
  } catch {
    return ['its key is not a PEM private key'];
  }
  return [];
}

/** Before anything is written: a CA there already would be replaced, and clients trusting it would stop. */
export function refuseAuthorityThere(dataDir: string): void {
  const files = tlsFilesOf(dataDir);
  for (const file of [files.caCert, files.caKey]) {
    if (existsSync(file)) throw new Error(`${file} exists already: import into an empty data directory`);
  }
}

export async function writeAuthority(dataDir: string, pair: CertificatePair): Promise<void> {
  const files = tlsFilesOf(dataDir);
  await mkdir(files.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await writeCertificatePair(files.caCert, files.caKey, pair);
}
