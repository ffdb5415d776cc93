import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import forge from 'node-forge';
import { afterAll, describe, expect, it } from 'vitest';
import { type AltName, loadTlsMaterial, permits, subjectAltNames } from './certificates.js';

describe('subjectAltNames', () => {
  it.each([
    [['localhost'], [{ type: 'dns', value: 'localhost' }]],
    [
      ['127.0.0.1', '::1'],
      [
        { type: 'ip', value: '127.0.0.1' },
        { type: 'ip', value: '::1' },
      ],
    ],
    [['[fe80::1]'], [{ type: 'ip', value: 'fe80::1' }]],
    [['Svc.Example.TEST', 'svc.example.test'], [{ type: 'dns', value: 'svc.example.test' }]],
    [['0.0.0.0', '::', ' '], []],
  ])('%j → %j', (hosts, expected) => expect(subjectAltNames(hosts)).toEqual(expected));
});

/** A 2048-bit RSA pair (Node's crypto: quick) as node-forge keys. */
function rsaKeys() {
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(pair.publicKey),
    privateKey: forge.pki.privateKeyFromPem(pair.privateKey) as forge.pki.rsa.PrivateKey,
  };
}

/** A certificate for `names` signed by the CA under `dir`, as anyone holding a copy of the CA's key could make. */
async function signedByCa(dir: string, names: AltName[]): Promise<{ cert: string; key: string }> {
  const ca = forge.pki.certificateFromPem(await readFile(path.join(dir, 'tls/ca.crt'), 'utf8'));
  const caKey = forge.pki.privateKeyFromPem(
    await readFile(path.join(dir, 'tls/ca.key'), 'utf8'),
  ) as forge.pki.rsa.PrivateKey;
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '0badc0de';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: 'other' }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    {
      name: 'subjectAltName',
      altNames: names.map((n) => (n.type === 'ip' ? { type: 7, ip: n.value } : { type: 2, value: n.value })),
    },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** Connects to a TLS server serving `pair`, trusting only `ca`, and answers how the handshake ended. */
async function handshake(pair: { cert: string; key: string }, ca: string, servername: string): Promise<string> {
  const server = tls.createServer(pair, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca, servername }, () => {
        socket.end();
        resolve('trusted');
      });
      // Node has no code of its own for this OpenSSL error (it says UNSPECIFIED); the message names it.
      socket.on('error', (error) => resolve(error.message));
    });
  } finally {
    server.close();
  }
}

/**
 * The CA svc makes may vouch only for the names it is made for (issue 28 item 6): a critical nameConstraints
 * extension, which TLS clients check, so a copy of its key signs for no other site.
 */
describe('the CA svc makes', () => {
  const dirs: string[] = [];
  const dataDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-tls-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('carries a critical name constraint permitting only its names', async () => {
    const dir = await dataDir();
    await loadTlsMaterial({ dataDir: dir, hosts: ['svc.example.test', '192.0.2.7'] });
    const ca = forge.pki.certificateFromPem(await readFile(path.join(dir, 'tls/ca.crt'), 'utf8'));
    const constraints = ca.getExtension('nameConstraints') as {
      critical: boolean;
      permittedSubtrees: Array<{ type: number; value: string }>;
    };
    expect(constraints.critical).toBe(true);
    const ip = (bytes: string) => [...bytes].map((c) => c.charCodeAt(0));
    expect(constraints.permittedSubtrees.map((s) => (s.type === 2 ? s.value : ip(s.value)))).toEqual([
      'localhost',
      [127, 0, 0, 1, 255, 255, 255, 255],
      [...Array(15).fill(0), 1, ...Array(16).fill(255)],
      'svc.example.test',
      [192, 0, 2, 7, 255, 255, 255, 255],
    ]);
  });

  it('is trusted for its own names and refused for any other, by Node’s TLS', async () => {
    const dir = await dataDir();
    const material = await loadTlsMaterial({ dataDir: dir, hosts: ['svc.example.test'] });
    const ca = await readFile(material.caFile!, 'utf8');
    expect(await handshake(material, ca, 'svc.example.test')).toBe('trusted');
    expect(await handshake(material, ca, 'localhost')).toBe('trusted');
    const other = await signedByCa(dir, [{ type: 'dns', value: 'bank.example' }]);
    expect(await handshake(other, ca, 'bank.example')).toBe('permitted subtree violation');
    const otherAddress = await signedByCa(dir, [{ type: 'ip', value: '192.0.2.99' }]);
    expect(await handshake(otherAddress, ca, 'localhost')).toBe('permitted subtree violation');
  });

  it('keeps a CA made without constraints, and makes a new one when a constrained one does not permit a host', async () => {
    const dir = await dataDir();
    const first = await loadTlsMaterial({ dataDir: dir, hosts: [] });
    const firstCa = await readFile(first.caFile!, 'utf8');
    expect(first.caReplaced).toBe(false);
    // Same hosts: kept.
    expect((await loadTlsMaterial({ dataDir: dir, hosts: [] })).caReplaced).toBe(false);
    expect(await readFile(first.caFile!, 'utf8')).toBe(firstCa);
    // A host it does not permit: a new CA, which permits it.
    const grown = await loadTlsMaterial({ dataDir: dir, hosts: ['svc.example.test'] });
    expect(grown.caReplaced).toBe(true);
    const grownCa = await readFile(grown.caFile!, 'utf8');
    expect(grownCa).not.toBe(firstCa);
    expect(permits(grownCa, subjectAltNames(['svc.example.test', 'localhost']))).toBe(true);
    expect(await handshake(grown, grownCa, 'svc.example.test')).toBe('trusted');
    // A CA without constraints (as svc made them before) permits anything, so it is kept.
    const old = await dataDir();
    await mkdir(path.join(old, 'tls'));
    const unconstrained = unconstrainedCa();
    await writeFile(path.join(old, 'tls/ca.crt'), unconstrained.cert);
    await writeFile(path.join(old, 'tls/ca.key'), unconstrained.key);
    const kept = await loadTlsMaterial({ dataDir: old, hosts: ['svc.example.test'] });
    expect(kept.caReplaced).toBe(false);
    expect(await readFile(kept.caFile!, 'utf8')).toBe(unconstrained.cert);
    expect(await handshake(kept, unconstrained.cert, 'svc.example.test')).toBe('trusted');
  });
});

function unconstrainedCa(): { cert: string; key: string } {
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: 'svc local CA' }]);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}
