/**
 * The in-memory indexes of one model. Objects are opaque bytes in the store, so this is what answers list queries
 * (which names, in which order, how many) and guards unique indexes; the caller then reads the page's bytes by name.
 *
 * Per object it keeps one record (name, labels, one value slot per field index), filed in the name index and in one
 * group per index value; the indexes hold the record itself, so the name string exists once.
 */
import { alreadyExists, badRequest, conflict, type ExtensionObject, type IndexSpec } from '@svc/plugin-api';
import { FieldIndex, NameIndex, type OrderedIndex } from './field-index.js';
import { IndexLoader } from './index-loader.js';
import {
  type IndexRecord,
  newRecord,
  recordLabels,
  recordName,
  recordSlot,
  setRecordLabels,
  setRecordSlot,
} from './index-record.js';
import { extractorOf, type Slot, sameSlot, slotValues } from './index-values.js';
import { LABELS_INDEX, LabelIndex, labelPairs, sameLabels } from './label-index.js';
import { type GroupAllowed, prefersSorting, type SortKey, sortRecords, walkPage } from './page.js';
import {
  type Clause,
  fieldClause,
  findMatches,
  type IndexContext,
  type IndexTarget,
  labelClause,
} from './query-plan.js';
import { pushMembers, type WalkInNameOrder } from './record-group.js';
import {
  type FieldRequirement,
  type LabelRequirement,
  matchesFields,
  matchesLabels,
  type SortTerm,
} from './selectors.js';

export const NAME_INDEX = 'metadata.name';
const NAME_ALIAS = 'name';
const CREATION_INDEX = 'metadata.creationTimestamp';
const DELETION_INDEX = 'metadata.deletionTimestamp';
const SERVER_TIMESTAMPS = new Set([CREATION_INDEX, DELETION_INDEX]);

export interface IndexQuery {
  labels: readonly LabelRequirement[];
  fields: readonly FieldRequirement[];
  sort: readonly SortTerm[];
  /** 1-based; ignored without `size`. */
  page?: number;
  /** Names per page; undefined (or 0) for every match. */
  size?: number;
}

export interface IndexPage {
  /** The requested page's names, in order. */
  names: string[];
  /** Number of all matches. */
  total: number;
}

export class ModelIndex {
  private readonly byName = new NameIndex();
  private readonly labels = new LabelIndex();
  /** What query clauses read. */
  private readonly context: IndexContext = { byName: this.byName, labels: this.labels };
  private readonly fieldIndexes: FieldIndex[] = [];
  private readonly targets = new Map<string, IndexTarget>();

  constructor(
    specs: readonly IndexSpec[] | undefined,
    private readonly modelLabel: string,
  ) {
    this.targets.set(NAME_INDEX, { kind: 'name' });
    this.targets.set(NAME_ALIAS, { kind: 'name' });
    this.targets.set(LABELS_INDEX, { kind: 'labels' });
    for (const spec of [{ name: CREATION_INDEX }, { name: DELETION_INDEX }, ...(specs ?? [])]) {
      if (this.targets.has(spec.name)) {
        throw new Error(`index "${spec.name}" of ${modelLabel} is declared twice (or is a default index)`);
      }
      const slot = this.fieldIndexes.length;
      // The server writes both timestamps itself, always as toISOString (fixed width): code-unit order is exact.
      const codeUnitOrder = SERVER_TIMESTAMPS.has(spec.name);
      // Only objects being deleted have a deletionTimestamp: the group without one is nearly the name index itself.
      const valuelessFrom: WalkInNameOrder | undefined =
        spec.name === DELETION_INDEX ? (visit) => this.byName.walk(visit) : undefined;
      const index = new FieldIndex(
        spec.name,
        spec.unique === true,
        extractorOf(spec, modelLabel),
        slot,
        codeUnitOrder,
        valuelessFrom,
      );
      this.fieldIndexes.push(index);
      this.targets.set(spec.name, { kind: 'field', index });
    }
  }

  get size(): number {
    return this.byName.size;
  }

  has(name: string): boolean {
    return this.byName.get(name) !== undefined;
  }

  /** Every name, in name order. */
  names(): string[] {
    return this.byName.names();
  }

  /** Index names a selector or sort may use (`name` is also accepted, as an alias of metadata.name). */
  indexNames(): string[] {
    return [NAME_INDEX, LABELS_INDEX, ...this.fieldIndexes.map((index) => index.name)];
  }

  /**
   * Throws 409 when `next` would duplicate a unique index value held by another object (its own entry, same name,
   * does not count). With `creating`, an existing object of that name is an AlreadyExists 409 too.
   */
  checkUnique(next: ExtensionObject, options: { creating?: boolean } = {}): void {
    const name = next.metadata.name;
    if (options.creating && this.has(name)) {
      throw alreadyExists(`${this.modelLabel} "${name}" already exists (index ${NAME_INDEX} is unique)`);
    }
    for (const index of this.fieldIndexes) {
      if (!index.unique) continue;
      for (const value of slotValues(index.extract(next))) {
        const holder = value === '' ? undefined : index.holder(value, name);
        if (holder !== undefined) {
          throw conflict(
            `${this.modelLabel} "${name}": unique index "${index.name}" already holds value "${value}" (for "${holder}")`,
          );
        }
      }
    }
  }

  /** The unique index values `object` holds, as a store that enforces them (a shared one) claims them. */
  uniqueClaims(object: ExtensionObject): Array<{ index: string; value: string }> {
    const claims: Array<{ index: string; value: string }> = [];
    for (const index of this.fieldIndexes) {
      if (!index.unique) continue;
      for (const value of slotValues(index.extract(object)))
        if (value !== '') claims.push({ index: index.name, value });
    }
    return claims;
  }

  /** Each unique index with the (value, name) pairs it holds. */
  uniqueHolders(): Array<{ index: string; holders: Array<[string, string]> }> {
    return this.fieldIndexes
      .filter((index) => index.unique)
      .map((index) => ({ index: index.name, holders: index.pairs().filter(([value]) => value !== '') }));
  }

  /**
   * Inserts (prev undefined), updates or removes (next undefined) an object. The old values come from the index's own
   * record of the object, so `prev` only names it and a stale `prev` cannot unbalance the index. Mirrors the store:
   * it does not enforce unique indexes (checkUnique does, before the write). Throws only if an indexFunc throws,
   * and then changes nothing.
   */
  apply(prev: ExtensionObject | undefined, next: ExtensionObject | undefined): void {
    if (prev && next && prev.metadata.name !== next.metadata.name) {
      this.apply(prev, undefined);
      this.apply(undefined, next);
      return;
    }
    const name = (next ?? prev)?.metadata.name;
    if (name === undefined) return;
    const existing = this.byName.get(name);
    if (!next) {
      if (existing) this.remove(existing);
      return;
    }
    const slots = this.fieldIndexes.map((index) => index.keysOf(index.extract(next)));
    const record = existing ?? newRecord(name, slots.length);
    const nextLabels = next.metadata.labels;
    if (!existing || !sameLabels(recordLabels(record), nextLabels)) {
      if (existing) this.labels.remove(record, recordLabels(record));
      setRecordLabels(record, this.labels.add(record, nextLabels));
    }
    slots.forEach((slot, i) => {
      const before: Slot | undefined = existing ? recordSlot(record, i) : undefined;
      if (before !== undefined && sameSlot(before, slot)) return;
      const index = this.fieldIndexes[i]!;
      if (before !== undefined) index.remove(record, before);
      setRecordSlot(record, i, index.add(record, slot));
    });
    if (!existing) this.byName.add(record);
  }

  /**
   * Bulk load of this empty index (index-loader.ts): `add` each object, then `finish` once. The index then answers as
   * if each object had been applied, and takes later `apply` calls as usual.
   */
  loader(): IndexLoader {
    const { byName, labels, fieldIndexes, modelLabel } = this;
    return new IndexLoader({ byName, labels, fieldIndexes, modelLabel });
  }

  /**
   * The records in name order as JSON arrays of at most `perChunk` records: what IndexLoader.addSnapshotChunk takes
   * back. Synchronous, so no write changes a record (updates change records in place) while it runs.
   */
  snapshotChunks(perChunk: number): string[] {
    const chunks: string[] = [];
    let records: IndexRecord[] = [];
    this.byName.walk((record) => {
      records.push(record);
      if (records.length === perChunk) {
        chunks.push(JSON.stringify(records));
        records = [];
      }
      return true;
    });
    if (records.length > 0 || chunks.length === 0) chunks.push(JSON.stringify(records));
    return chunks;
  }

  /** Bulk load of this empty index from `objects`, taken one at a time (so a generator need not hold them all). */
  load(objects: Iterable<ExtensionObject>): void {
    const loader = this.loader();
    for (const object of objects) loader.add(object);
    loader.finish();
  }

  query(query: IndexQuery): IndexPage {
    const clauses = this.clauses(query.labels, query.fields);
    const matches = findMatches(clauses, this.context);
    const keys = this.sortKeys(query.sort);
    const { total } = matches;
    const size = query.size || undefined;
    const offset = size ? (Math.max(1, query.page ?? 1) - 1) * size : 0;
    const limit = size ?? total;
    if (total === 0 || offset >= total) return { names: [], total };

    const pageEnd = Math.min(total, offset + limit);
    let page: IndexRecord[];
    if ((matches.records || matches.groups) && prefersSorting(total, this.size, pageEnd)) {
      let gathered = matches.records;
      if (!gathered) {
        gathered = [];
        for (const group of matches.groups!) pushMembers(group, gathered);
      }
      page = sortRecords(gathered, keys, offset, limit);
    } else {
      page = walkPage(keys, matches.accept, this.size, offset, limit, groupAllowed(clauses));
    }
    return { names: page.map(recordName), total };
  }

  count(labels: readonly LabelRequirement[], fields: readonly FieldRequirement[]): number {
    return findMatches(this.clauses(labels, fields), this.context).total;
  }

  /** Objects per value of one index (`key=value` for metadata.labels); objects without a value are not counted. */
  countBy(indexName: string): Record<string, number> {
    const target = this.target(indexName, 'countBy');
    if (target.kind === 'labels') return this.labels.counts();
    if (target.kind === 'field') return target.index.counts();
    return Object.fromEntries(this.names().map((name) => [name, 1]));
  }

  /** Whether one object matches the selectors, computed from the object itself (for watches). */
  matches(object: ExtensionObject, labels: readonly LabelRequirement[], fields: readonly FieldRequirement[]): boolean {
    if (!matchesLabels(labels, object.metadata.labels)) return false;
    return matchesFields(fields, (field) => {
      const target = this.target(field, 'fieldSelector');
      if (target.kind === 'name') return [object.metadata.name];
      if (target.kind === 'labels') return labelPairs(object.metadata.labels);
      return slotValues(target.index.extract(object));
    });
  }

  /** Throws the 400 a query would, so a watch can check its selectors and sort before it starts. */
  validate(query: Pick<IndexQuery, 'fields' | 'sort'>): void {
    for (const { field } of query.fields) this.target(field, 'fieldSelector');
    this.sortKeys(query.sort);
  }

  private remove(record: IndexRecord): void {
    this.labels.remove(record, recordLabels(record));
    this.fieldIndexes.forEach((index, i) => {
      index.remove(record, recordSlot(record, i));
    });
    this.byName.remove(record);
  }

  private clauses(labels: readonly LabelRequirement[], fields: readonly FieldRequirement[]) {
    return [
      ...fields.map((req) => fieldClause(req, this.target(req.field, 'fieldSelector'), this.context)),
      ...labels.map((req) => labelClause(req, this.context)),
    ];
  }

  /**
   * The sort as index keys: default creationTimestamp descending. Every sort ends with name ascending as the
   * tie-break; that key is left implicit (groups are name-ordered and sortRecords ends with the name).
   */
  private sortKeys(terms: readonly SortTerm[]): SortKey[] {
    const keys: SortKey[] = [];
    const used = new Set<OrderedIndex>();
    const effective = terms.length > 0 ? terms : [{ field: CREATION_INDEX, direction: 'desc' as const }];
    for (const term of effective) {
      const target = this.target(term.field, 'sort');
      if (target.kind === 'labels') {
        throw badRequest(`cannot sort ${this.modelLabel} by ${LABELS_INDEX}: it holds several values per object`);
      }
      const index = target.kind === 'name' ? this.byName : target.index;
      if (used.has(index)) continue;
      used.add(index);
      keys.push({ index, descending: term.direction === 'desc' });
      // Names are unique: nothing after them can reorder anything.
      if (index === this.byName) break;
    }
    return keys;
  }

  private target(field: string, use: 'fieldSelector' | 'sort' | 'countBy'): IndexTarget {
    const target = this.targets.get(field);
    if (target) return target;
    const known = [NAME_ALIAS, ...this.indexNames()].join(', ');
    throw badRequest(`${use} field "${field}" is not an index of ${this.modelLabel}; its indexes are: ${known}`);
  }
}

/** The clauses' group filters as one test, or undefined when no clause has one. */
function groupAllowed(clauses: readonly Clause[]): GroupAllowed | undefined {
  const filters = clauses.flatMap((clause) => (clause.groupFilter ? [clause.groupFilter] : []));
  if (filters.length === 0) return undefined;
  return (index, value) => filters.every((filter) => filter.index !== index || filter.allows(value));
}
