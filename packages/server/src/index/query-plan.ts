/**
 * Turns selector terms into clauses over the index, and finds the set of matching objects with as little work as the
 * clauses allow: an equality or set term is a union of groups looked up by value; the smallest such union drives
 * (the other terms only test its members); the count of a single term is the sum of its group sizes.
 */
import type { FieldIndex, NameIndex } from './field-index.js';
import { type IndexRecord, recordKey, recordLabels, recordSlot } from './index-record.js';
import type { LabelIndex } from './label-index.js';
import { naturalSortKey } from './natural-compare.js';
import { forEachMember, groupSize, pushMembers, type RecordGroup } from './record-group.js';
import { type FieldRequirement, type LabelRequirement, matchesLabels } from './selectors.js';

/** What a selector or sort field names: the object name, the labels, or a field index. */
export type IndexTarget = { kind: 'name' } | { kind: 'labels' } | { kind: 'field'; index: FieldIndex };

/** The parts of a model's index that clauses read. */
export interface IndexContext {
  readonly byName: NameIndex;
  readonly labels: LabelIndex;
}

export interface Clause {
  /** Groups whose union is exactly what the term selects (or, `negated`, rejects); undefined when not enumerable. */
  groups: RecordGroup[] | undefined;
  negated: boolean;
  /** No object is in two of the groups, so their sizes add up to the size of the union. */
  disjoint: boolean;
  /** The whole term (negation included) on one object's record. */
  test(record: IndexRecord): boolean;
  /** For a term on a field index: whether a group of that index can hold matches at all, from its value alone. */
  groupFilter?: GroupFilter;
}

export interface GroupFilter {
  index: FieldIndex;
  /** Whether the group of the value whose sort key is `key` can hold matches. */
  allows(key: string): boolean;
}

export interface Matches {
  total: number;
  /** The matches, when gathering them was part of counting them (in no particular order). */
  records?: IndexRecord[];
  /** A union of groups that is exactly the matches, when a single term selects them. */
  groups?: RecordGroup[];
  /** Tells whether an object matches, for walks over all objects; undefined when every object matches. */
  accept?: (record: IndexRecord) => boolean;
}

export function labelClause(requirement: LabelRequirement, { labels }: IndexContext): Clause {
  const { key, operator, values } = requirement;
  const alone = [requirement];
  const test = (record: IndexRecord) => matchesLabels(alone, recordLabels(record));
  const byKey = operator === 'exists' || operator === 'notExists';
  const groups = byKey ? labels.groupsOf(key) : present(distinct(values).map((value) => labels.group(key, value)));
  return { groups, negated: operator === 'notIn' || operator === 'notExists', disjoint: true, test };
}

export function fieldClause(requirement: FieldRequirement, target: IndexTarget, context: IndexContext): Clause {
  const values = distinct(requirement.values);
  const negated = requirement.operator === 'notIn';
  const clause = (groups: RecordGroup[] | undefined, disjoint: boolean, matches: (record: IndexRecord) => boolean) => ({
    groups,
    negated,
    disjoint,
    test: negated ? (record: IndexRecord) => !matches(record) : matches,
  });
  if (target.kind === 'name') {
    const records = present(values.map((name) => context.byName.get(name)));
    const keys = values.map(naturalSortKey);
    return clause(records, true, (record) => keys.includes(recordKey(record)));
  }
  if (target.kind === 'labels') {
    // Values read `key=value`; the empty value selects objects without labels, which no group enumerates.
    const pairs = values.map((value) => value.split(/=(.*)/s, 2) as [string, string?]);
    const groups = values.includes('') ? undefined : present(pairs.map(([k, v]) => context.labels.group(k, v ?? '\0')));
    return clause(groups, values.length === 1, (record) => {
      const own = recordLabels(record);
      if (!own) return values.includes('');
      return pairs.some(([k, v]) => v !== undefined && Object.hasOwn(own, k) && own[k] === v);
    });
  }
  const { index } = target;
  const slot = index.slot;
  // Records hold, and walks visit, the values' sort keys: the terms are compared as keys too.
  const keys = values.map((value) => index.key(value));
  const single = keys.length === 1 ? keys[0] : undefined;
  const groups = present(values.map((value) => index.group(value)));
  const result: Clause = clause(groups, !index.multiValued, (record) => {
    const own = recordSlot(record, slot);
    if (typeof own === 'string') return single !== undefined ? own === single : keys.includes(own);
    return own.some((key) => keys.includes(key));
  });
  // A walk over this index can pass over excluded groups unseen (a multi-value object in another group may still
  // hold a selected value, so `in` only prunes single-value indexes; `notIn` rejects a group's members either way).
  if (negated) result.groupFilter = { index, allows: (key) => !keys.includes(key) };
  else if (!index.multiValued) result.groupFilter = { index, allows: (key) => keys.includes(key) };
  return result;
}

/** The objects matching every clause (all terms ANDed). */
export function findMatches(clauses: Clause[], { byName }: IndexContext): Matches {
  const all = byName.size;
  if (clauses.length === 0) return { total: all };
  const acceptAll =
    (tests: Clause[]) =>
    (record: IndexRecord): boolean => {
      for (const clause of tests) if (!clause.test(record)) return false;
      return true;
    };

  let driver: Clause | undefined;
  let driverSize = Infinity;
  for (const clause of clauses) {
    if (clause.negated || !clause.groups) continue;
    const size = sizeOf(clause.groups);
    if (size < driverSize) [driver, driverSize] = [clause, size];
  }

  const accept = acceptAll(clauses);
  if (driver?.groups) {
    const others = clauses.filter((clause) => clause !== driver);
    if (others.length === 0 && driver.disjoint) return { total: driverSize, groups: driver.groups, accept };
    // Gather the driver's (smallest) union and test the other terms on each member.
    const gathered: IndexRecord[] = [];
    for (const group of driver.groups) pushMembers(group, gathered);
    const unique = driver.disjoint ? gathered : [...new Set(gathered)];
    const matching = unique.filter(acceptAll(others));
    return { total: matching.length, records: matching, accept };
  }

  // Only rejecting terms: every object but the union of what they reject, counted without visiting the rest.
  if (clauses.every((clause) => clause.groups)) {
    const only = clauses.length === 1 ? clauses[0]! : undefined;
    if (only?.disjoint) return { total: all - sizeOf(only.groups!), accept };
    const rejected = new Set<IndexRecord>();
    const reject = (record: IndexRecord) => void rejected.add(record);
    for (const clause of clauses) for (const group of clause.groups!) forEachMember(group, reject);
    return { total: all - rejected.size, accept };
  }
  // A term no group enumerates (`metadata.labels=`: objects without labels): count by testing every object.
  let total = 0;
  byName.walk((record) => {
    if (accept(record)) total++;
    return true;
  });
  return { total, accept };
}

function sizeOf(groups: readonly RecordGroup[]): number {
  let size = 0;
  for (const group of groups) size += groupSize(group);
  return size;
}

function present<T>(items: Array<T | undefined>): T[] {
  return items.filter((item): item is T => item !== undefined);
}

function distinct(values: readonly string[]): string[] {
  return values.length < 2 ? [...values] : [...new Set(values)];
}
