/**
 * The list query language of docs/api.md "Lists", parsed into plain data, and the matchers that give it meaning for a
 * single object (a watch filters events with these, without the index). Pure: no state, no I/O.
 *
 * Every parameter may be repeated and holds comma-separated terms; all terms of all parameters are ANDed.
 */
import { badRequest } from '@svc/plugin-api';

/**
 * `in`: the key is present with one of `values`; `notIn`: absent, or present with none of them (Kubernetes:
 * `k!=v` and `notin` include objects without the key); `exists`/`notExists`: presence of the key (`values` empty).
 */
export interface LabelRequirement {
  key: string;
  operator: 'in' | 'notIn' | 'exists' | 'notExists';
  values: string[];
}

/**
 * `in`: one of the object's values for the index is in `values`; `notIn`: none is. An object without a value counts
 * as having the empty value, so `f=` selects objects without one and `f!=v` includes them.
 */
export interface FieldRequirement {
  field: string;
  operator: 'in' | 'notIn';
  values: string[];
}

export interface SortTerm {
  field: string;
  direction: 'asc' | 'desc';
}

type Parameter = string | readonly string[] | undefined;

const LABEL_FORMS = 'key, !key, key=value, key==value, key!=value, key in (v1,v2), key notin (v1,v2) or key=(v1,v2)';
const FIELD_FORMS = 'field=value, field==value, field!=value or field=(v1,v2)';

// Label keys and values as docs/api.md "Objects" (Kubernetes syntax): an optional DNS-subdomain prefix and a name.
const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const LABEL_NAME = '[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?';
const LABEL_KEY = new RegExp(`^(${DNS_LABEL}(\\.${DNS_LABEL})*/)?${LABEL_NAME}$`);
const LABEL_VALUE = new RegExp(`^(${LABEL_NAME})?$`);
// Field names are index names: anything without the selector's own punctuation or whitespace.
const FIELD_NAME = /^[^\s=!,()]+$/;

export function parseLabelSelector(input: Parameter): LabelRequirement[] {
  return termsOf(input, 'labelSelector').map(parseLabelTerm);
}

export function parseFieldSelector(input: Parameter): FieldRequirement[] {
  return termsOf(input, 'fieldSelector').map(parseFieldTerm);
}

/**
 * `<field>[,asc|desc]`, repeatable. As Spring's `sort` parameter (which Halo clients send), `a,b,desc` sorts by both
 * fields descending.
 */
export function parseSort(input: Parameter): SortTerm[] {
  const terms: SortTerm[] = [];
  for (const raw of parameters(input)) {
    if (raw.trim() === '') continue;
    const parts = raw.split(',').map((part) => part.trim());
    const last = parts[parts.length - 1]!.toLowerCase();
    const direction = last === 'asc' || last === 'desc' ? last : undefined;
    const fields = direction ? parts.slice(0, -1) : parts;
    if (fields.length === 0 || fields.some((field) => !FIELD_NAME.test(field))) {
      throw badRequest(`invalid sort "${raw}": expected <field>, <field>,asc or <field>,desc`);
    }
    for (const field of fields) terms.push({ field, direction: direction ?? 'asc' });
  }
  return terms;
}

export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  for (const { key, operator, values } of requirements) {
    const value = labels && Object.hasOwn(labels, key) ? labels[key] : undefined;
    const ok =
      operator === 'exists'
        ? value !== undefined
        : operator === 'notExists'
          ? value === undefined
          : operator === 'in'
            ? value !== undefined && values.includes(value)
            : value === undefined || !values.includes(value);
    if (!ok) return false;
  }
  return true;
}

const NO_VALUE: readonly string[] = [''];

/** `valuesOf(field)` returns the object's values for an index (none = the empty value). */
export function matchesFields(
  requirements: readonly FieldRequirement[],
  valuesOf: (field: string) => readonly string[],
): boolean {
  for (const { field, operator, values } of requirements) {
    const own = valuesOf(field);
    const found = (own.length === 0 ? NO_VALUE : own).some((value) => values.includes(value));
    if (found !== (operator === 'in')) return false;
  }
  return true;
}

function parseLabelTerm(term: string): LabelRequirement {
  const fail = (why: string) => badRequest(`invalid labelSelector term "${term}": ${why}; expected ${LABEL_FORMS}`);
  const key = (text: string) => {
    if (!LABEL_KEY.test(text)) throw fail(`"${text}" is not a valid label key`);
    return text;
  };
  const value = (text: string) => {
    if (text.length > 63 || !LABEL_VALUE.test(text)) throw fail(`"${text}" is not a valid label value`);
    return text;
  };
  const set = (text: string) => {
    const values = splitSet(text, fail).map(value);
    if (values.length === 0) throw fail('the set of values is empty');
    return values;
  };

  if (term.startsWith('!') && !term.includes('=')) {
    return { key: key(term.slice(1).trim()), operator: 'notExists', values: [] };
  }
  const setTerm = /^(\S+)\s+(in|notin)\s*(\(.*)$/.exec(term);
  if (setTerm) {
    return { key: key(setTerm[1]!), operator: setTerm[2] === 'in' ? 'in' : 'notIn', values: set(setTerm[3]!) };
  }
  const binary = splitOperator(term);
  if (!binary) return { key: key(term), operator: 'exists', values: [] };
  const operator = binary.negated ? 'notIn' : 'in';
  const rhs = binary.rhs;
  return { key: key(binary.lhs), operator, values: rhs.startsWith('(') ? set(rhs) : [value(rhs)] };
}

function parseFieldTerm(term: string): FieldRequirement {
  const fail = (why: string) => badRequest(`invalid fieldSelector term "${term}": ${why}; expected ${FIELD_FORMS}`);
  const binary = splitOperator(term);
  if (!binary) throw fail('no operator');
  if (!FIELD_NAME.test(binary.lhs)) throw fail(`"${binary.lhs}" is not a field name`);
  const rhs = binary.rhs;
  const values = rhs.startsWith('(') ? splitSet(rhs, fail) : [rhs];
  if (values.length === 0) throw fail('the set of values is empty');
  return { field: binary.lhs, operator: binary.negated ? 'notIn' : 'in', values };
}

/** `lhs=rhs`, `lhs==rhs` or `lhs!=rhs`, split at the first operator (values may contain `=`, e.g. `k=v` labels). */
function splitOperator(term: string): { lhs: string; rhs: string; negated: boolean } | undefined {
  const at = term.indexOf('=');
  if (at < 0) return undefined;
  const negated = at > 0 && term[at - 1] === '!';
  const lhs = term.slice(0, negated ? at - 1 : at).trim();
  const rhs = term.slice(term[at + 1] === '=' && !negated ? at + 2 : at + 1).trim();
  return { lhs, rhs, negated };
}

/** `(a, b)` → ['a', 'b']; the text must be one parenthesized list. */
function splitSet(text: string, fail: (why: string) => Error): string[] {
  const inner = text.slice(1, -1);
  if (!text.startsWith('(') || !text.endsWith(')') || /[()]/.test(inner)) {
    throw fail('a set of values must be written (v1,v2), without nested parentheses');
  }
  return inner.trim() === '' ? [] : inner.split(',').map((v) => v.trim());
}

function parameters(input: Parameter): readonly string[] {
  return input === undefined ? [] : typeof input === 'string' ? [input] : input;
}

/** Comma-separated terms of every parameter; commas inside parentheses belong to a set. */
function termsOf(input: Parameter, name: string): string[] {
  const terms: string[] = [];
  for (const raw of parameters(input)) {
    if (raw.trim() === '') continue;
    let depth = 0;
    let start = 0;
    for (let i = 0; i <= raw.length; i++) {
      const c = raw[i];
      if (c === '(') depth++;
      else if (c === ')' && --depth < 0) break;
      else if ((c === ',' && depth === 0) || i === raw.length) {
        const term = raw.slice(start, i).trim();
        if (term === '') throw badRequest(`invalid ${name} "${raw}": empty term (two commas, or a comma at an end)`);
        terms.push(term);
        start = i + 1;
      }
    }
    if (depth !== 0) throw badRequest(`invalid ${name} "${raw}": unbalanced parentheses`);
  }
  return terms;
}
