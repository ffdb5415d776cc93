import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  BACKUP_API_VERSION,
  encodeRestored,
  readEntry,
  readHeader,
  recordDocument,
  secretsDocument,
  yamlDocument,
} from './backup-format.js';

const PERSONS = { resource: 'people.svc.run/persons', apiVersion: 'people.svc.run/v1alpha1', kind: 'Person' };
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
const ada = {
  apiVersion: 'people.svc.run/v1alpha1',
  kind: 'Person',
  metadata: { name: 'ada', uid: 'u-1', version: 3, resourceVersion: '42', labels: { team: 'a' }, finalizers: ['f'] },
  spec: { age: 36 },
  status: { phase: 'Ready' },
};
const resources = new Map([['people.svc.run/v1alpha1 Person', 'people.svc.run/persons']]);

describe('backup documents', () => {
  it.each([
    {
      why: 'an object of the resource is itself, without its resourceVersion',
      name: 'ada',
      value: bytes(ada),
      document: { ...ada, metadata: { name: 'ada', uid: 'u-1', version: 3, labels: { team: 'a' }, finalizers: ['f'] } },
    },
    {
      why: 'a record that is not JSON is kept as bytes',
      name: 'raw',
      value: Buffer.from([0xff, 0x00, 0x7b]),
      document: { kind: 'StoredRecord', resource: PERSONS.resource, value: '/wB7' },
    },
    {
      why: 'an object of another kind than its resource holds is kept as bytes',
      name: 'ada',
      value: bytes({ ...ada, kind: 'Robot' }),
      document: { kind: 'StoredRecord', metadata: { name: 'ada' } },
    },
    {
      why: 'an object whose name is not its key is kept as bytes',
      name: 'not-ada',
      value: bytes(ada),
      document: { kind: 'StoredRecord', metadata: { name: 'not-ada' } },
    },
  ])('$why', ({ name, value, document }) => {
    expect(recordDocument(PERSONS, name, value)).toMatchObject(document);
    // Whatever it became, reading it back restores the same record.
    const entry = readEntry(recordDocument(PERSONS, name, value), resources, 2);
    if (entry.type === 'record') expect(entry).toEqual({ type: 'record', resource: PERSONS.resource, name, value });
    else expect(entry).toMatchObject({ type: 'object', resource: PERSONS.resource, name });
  });

  it('restores an object with its new revision as resourceVersion, everything else as it was', () => {
    const entry = readEntry(recordDocument(PERSONS, 'ada', bytes(ada)), resources, 2);
    if (entry.type !== 'object') throw new Error('expected an object');
    expect(JSON.parse(encodeRestored(entry.object, 7).toString())).toEqual({
      ...ada,
      metadata: { ...ada.metadata, resourceVersion: '7' },
    });
  });

  it('carries secret records as base64, as a Kubernetes Secret carries data', () => {
    const document = secretsDocument('security.svc.run/credentials', [['alice', Buffer.from('{"hash":1}')]]);
    expect(document).toEqual({
      apiVersion: BACKUP_API_VERSION,
      kind: 'SecretRecords',
      metadata: { name: 'security.svc.run/credentials' },
      data: { alice: 'eyJoYXNoIjoxfQ==' },
    });
    expect(readEntry(document, resources, 3)).toEqual({
      type: 'secrets',
      kind: 'security.svc.run/credentials',
      records: [['alice', Buffer.from('{"hash":1}')]],
    });
  });

  it.each([
    { document: 'text', message: 'document 4: is not a mapping' },
    { document: { ...ada, metadata: {} }, message: 'document 4: has no metadata.name' },
    {
      document: { ...ada, apiVersion: 'other/v1' },
      message: 'document 4: the header lists no resource for apiVersion other/v1, kind Person',
    },
    {
      document: { apiVersion: BACKUP_API_VERSION, kind: 'Mystery', metadata: { name: 'x' } },
      message: `document 4: unknown kind "Mystery" of ${BACKUP_API_VERSION}`,
    },
    {
      document: { apiVersion: BACKUP_API_VERSION, kind: 'SecretRecords', metadata: { name: 'k' }, data: { a: '!' } },
      message: 'document 4: holds a value that is not base64',
    },
  ])('refuses a broken document: $message', ({ document, message }) => {
    expect(() => readEntry(document, resources, 4)).toThrow(message);
  });

  it('refuses a file that does not start with a Backup header', () => {
    expect(() => readHeader({ apiVersion: 'v1', kind: 'List' })).toThrow(
      `not an svc backup: the first document must be apiVersion ${BACKUP_API_VERSION}, kind Backup`,
    );
    expect(() =>
      readHeader({ apiVersion: BACKUP_API_VERSION, kind: 'Backup', resources: [{ resource: 'x' }] }),
    ).toThrow('document 1: resources[0] needs resource, apiVersion and kind');
    const header = { apiVersion: BACKUP_API_VERSION, kind: 'Backup', source: { revision: 90 }, resources: [PERSONS] };
    expect(readHeader(header)).toEqual({ resources, revision: 90, announcesTrailer: false });
    expect(readHeader({ ...header, source: { revision: 'x' } })).toEqual({
      resources,
      revision: 0,
      announcesTrailer: false,
    });
    expect(readHeader({ ...header, integrity: { algorithm: 'sha256' } }).announcesTrailer).toBe(true);
  });

  it('quotes strings a YAML 1.1 reader would take for something else, and reads back the same values', () => {
    const spec = { answer: 'yes', at: '2026-11-23T20:25:38.096Z', off: 'Off', count: 3, on: true, time: '12:30' };
    expect(yamlDocument({ spec })).toBe(
      '---\nspec:\n  answer: "yes"\n  at: "2026-11-23T20:25:38.096Z"\n  "off": "Off"\n  count: 3\n  "on": true\n  time: "12:30"\n',
    );
    expect(parse(yamlDocument({ spec }))).toEqual({ spec });
  });
});
