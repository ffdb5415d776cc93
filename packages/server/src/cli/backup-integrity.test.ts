import { describe, expect, it } from 'vitest';
import { BACKUP_API_VERSION } from './backup-format.js';
import { BackupDigest, checkCounts, verifyBackup } from './backup-integrity.js';

const header = {
  apiVersion: BACKUP_API_VERSION,
  kind: 'Backup',
  source: { revision: 7 },
  integrity: { algorithm: 'sha256' },
  resources: [],
};
const role = { apiVersion: 'v1alpha1', kind: 'Role', metadata: { name: 'r' } };

/** A file as svc export writes it, from its documents. */
function exported(...documents: unknown[]): Buffer {
  const digest = new BackupDigest();
  const text = documents.map((document) => digest.document(document)).join('');
  return Buffer.from(text + digest.trailer({ objects: documents.length - 1, secretRecords: 0, plugins: 0 }));
}

describe('a backup that checks itself', () => {
  it('ends with a trailer holding the counts and the SHA-256 of every byte before it, which the import checks', () => {
    const file = exported(header, role);
    const text = file.toString('utf8');
    const body = text.slice(0, text.lastIndexOf('\n---\n') + 1);
    expect(text.slice(body.length)).toMatch(
      /^---\napiVersion: backup\.svc\.run\/v1\nkind: BackupTrailer\ndocuments: 2\nobjects: 1\nsecretRecords: 0\nplugins: 0\nsha256: [0-9a-f]{64}\n$/,
    );
    const verified = verifyBackup(file, false);
    expect(verified.text).toBe(body);
    expect(verified.trailer).toMatchObject({ documents: 2, objects: 1 });
  });

  it.each([
    [
      'a trailer whose digest is damaged',
      (t: string) => t.replace(/sha256: ./, 'sha256: g'),
      'the trailer is damaged: sha256 must be 64 hexadecimal digits',
    ],
    [
      'a trailer whose count is damaged',
      (t: string) => t.replace('objects: 1', 'objects: -1'),
      'the trailer is damaged: objects must be a count, got -1',
    ],
    [
      'a document added after the trailer',
      (t: string) => `${t}---\nkind: Role\n`,
      'it does not end with the trailer its header announces',
    ],
  ])('refuses %s', (_what, change, message) => {
    const damaged = Buffer.from(change(exported(header, role).toString('utf8')));
    expect(() => verifyBackup(damaged, false)).toThrow(message);
  });

  it('refuses bytes that are not UTF-8 text', () => {
    const { integrity: _none, ...older } = header;
    const file = Buffer.concat([Buffer.from(new BackupDigest().document(older)), Buffer.from([0xff, 0xfe, 0x0a])]);
    expect(() => verifyBackup(file, true)).toThrow('it is not UTF-8 text');
  });

  it('tells counts that differ from what the file holds', () => {
    const trailer = verifyBackup(exported(header, role), false).trailer!;
    expect(() => checkCounts(trailer, { documents: 2, objects: 1, secretRecords: 0, plugins: 0 })).not.toThrow();
    expect(() => checkCounts(trailer, { documents: 2, objects: 2, secretRecords: 0, plugins: 0 })).toThrow(
      'its trailer counts 1 objects, and the file holds 2',
    );
  });

  it('takes a backup without a trailer whose header announces none (an older svc) only when told to', () => {
    const { integrity: _none, ...older } = header;
    const digest = new BackupDigest();
    const file = Buffer.from(digest.document(older) + digest.document(role));
    expect(() => verifyBackup(file, false)).toThrow('it has no trailer: an older svc wrote it');
    expect(verifyBackup(file, true)).toEqual({ text: file.toString('utf8') });
  });
});
