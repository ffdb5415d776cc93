/**
 * A backup checks itself. `svc export` hashes every byte it writes and ends the file with a BackupTrailer: the counts
 * of what precedes it and their SHA-256. `svc import` finds the trailer and compares before it parses anything else, so
 * a file cut short, damaged in one byte or edited is refused whole instead of restoring what precedes the damage.
 *
 * The digest tells damage from a whole file; it is no signature: whoever may edit a backup may also write a new digest
 * (docs/cli.md says how to keep backups where only their owner can write).
 */
import { createHash } from 'node:crypto';
import { parseDocument } from 'yaml';
import {
  BACKUP_API_VERSION,
  type BackupCounts,
  type BackupTrailer,
  readHeader,
  readTrailer,
  TRAILER_KIND,
  yamlDocument,
} from './backup-format.js';

/** What the export has written so far: the digest of its bytes, and how many documents. */
export class BackupDigest {
  private readonly hash = createHash('sha256');
  private documents = 0;

  /** The text of one document, counted and added to the digest. */
  document(value: unknown): string {
    const text = yamlDocument(value);
    this.hash.update(text);
    this.documents++;
    return text;
  }

  /** The trailer's text, with what the documents restore: written last, and not part of the digest. */
  trailer(counts: Omit<BackupCounts, 'documents'>): string {
    const trailer: BackupTrailer = {
      apiVersion: BACKUP_API_VERSION,
      kind: TRAILER_KIND,
      documents: this.documents,
      objects: counts.objects,
      secretRecords: counts.secretRecords,
      plugins: counts.plugins,
      sha256: this.hash.digest('hex'),
    };
    return yamlDocument(trailer);
  }
}

export interface VerifiedBackup {
  /** The documents before the trailer (the whole file when there is none). */
  text: string;
  /** Absent for a backup of an older svc, imported with --unverified. */
  trailer?: BackupTrailer;
}

/** The line that starts every document after the first: the trailer follows the last one. */
const SEPARATOR = Buffer.from('\n---\n');

/**
 * Checks the file's trailer and digest; answers the text to parse. Throws, saying what is wrong, for a file cut short,
 * changed after the export wrote it, without the trailer its header announces, or (unless `unverified`) a backup of an
 * older svc without any.
 */
export function verifyBackup(bytes: Buffer, unverified: boolean): VerifiedBackup {
  const at = bytes.lastIndexOf(SEPARATOR);
  const trailer = at < 0 ? undefined : trailerIn(bytes.subarray(at + 1));
  if (trailer) {
    const covered = bytes.subarray(0, at + 1);
    const digest = createHash('sha256').update(covered).digest('hex');
    if (digest !== trailer.sha256) {
      throw new Error(
        `it is damaged, or was changed after svc export wrote it: the SHA-256 of its ${covered.length} bytes before ` +
          `the trailer is ${digest}, and the trailer says ${trailer.sha256}`,
      );
    }
    return { text: utf8(covered), trailer };
  }
  const text = utf8(bytes);
  if (readHeader(firstDocument(text)).announcesTrailer) {
    throw new Error(
      'it does not end with the trailer its header announces (svc export writes it last, with the digest of ' +
        'everything before it): the file was cut short (a full disk, an interrupted copy), or its end removed or damaged',
    );
  }
  if (!unverified) {
    throw new Error(
      'it has no trailer: an older svc wrote it, so nothing tells whether it is whole or was cut short. Export it ' +
        'again with this svc if its source still exists; if you know the file is whole, import it with --unverified ' +
        '(every object is still checked as a create would)',
    );
  }
  return { text };
}

/** The counts the trailer gives, compared with what the file holds (a mismatch under a right digest is no export's). */
export function checkCounts(trailer: BackupTrailer, found: BackupCounts): void {
  for (const count of ['documents', 'objects', 'secretRecords', 'plugins'] as const) {
    if (trailer[count] !== found[count]) {
      throw new Error(`its trailer counts ${trailer[count]} ${count}, and the file holds ${found[count]}`);
    }
  }
}

/** The trailer, when the last document is one. */
function trailerIn(tail: Buffer): BackupTrailer | undefined {
  const document = parseDocument(tail.toString('utf8'));
  return document.errors.length > 0 ? undefined : readTrailer(document.toJS());
}

/** The first document's value, parsed alone: a file cut short may not parse past it. */
function firstDocument(text: string): unknown {
  const end = text.indexOf('\n---\n', 1);
  const document = parseDocument(end < 0 ? text : text.slice(0, end + 1));
  if (document.errors.length > 0) throw new Error(`document 1: ${document.errors[0]!.message}`);
  return document.toJS();
}

function utf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('it is not UTF-8 text (svc export writes YAML in UTF-8)');
  }
}
