/**
 * Name rules shared by object names, label keys, finalizers and model groups. Each check returns one message per
 * failed rule, so a client learns everything that is wrong with a name at once.
 */
import { randomInt } from 'node:crypto';
import type { FieldError } from '@svc/plugin-api';

export const MAX_NAME_LENGTH = 253;
export const MAX_LABEL_NAME_LENGTH = 63;
/** `metadata.name` (docs/api.md "Objects"). */
export const NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS subdomain: names as above joined by dots; used for label prefixes and model groups. */
export const DNS_SUBDOMAIN_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The name part of a label key (the seed's label table): alphanumeric at both ends, `-`, `_`, `.` inside. */
const LABEL_NAME_PATTERN = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

const GENERATED_SUFFIX_LENGTH = 5;
const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Messages for a `metadata.name`-style name; empty when valid. */
export function nameProblems(name: string, maxLength = MAX_NAME_LENGTH): string[] {
  if (name === '') return ['must not be empty'];
  const problems: string[] = [];
  if (name.length > maxLength) problems.push(`must be at most ${maxLength} characters (has ${name.length})`);
  if (!/^[-a-z0-9]*$/.test(name)) problems.push("must contain only lowercase letters, digits and '-'");
  if (name.startsWith('-') || name.endsWith('-')) problems.push('must start and end with a lowercase letter or digit');
  return problems;
}

/** Messages for a DNS subdomain (label prefixes, model groups); empty when valid. */
export function subdomainProblems(value: string): string[] {
  if (value === '') return ['must not be empty'];
  const problems: string[] = [];
  if (value.length > MAX_NAME_LENGTH)
    problems.push(`must be at most ${MAX_NAME_LENGTH} characters (has ${value.length})`);
  if (!DNS_SUBDOMAIN_PATTERN.test(value)) {
    problems.push(
      "must be a DNS subdomain: lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit",
    );
  }
  return problems;
}

export function validateName(name: unknown, path = '/metadata/name'): FieldError[] {
  if (typeof name !== 'string') return [{ path, message: 'must be a string' }];
  return nameProblems(name).map((message) => ({ path, message }));
}

/** `prefix` plus random lowercase alphanumerics; the prefix is cut so the result stays a valid length. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return prefix.slice(0, MAX_NAME_LENGTH - GENERATED_SUFFIX_LENGTH) + suffix;
}

/**
 * A generateName may end in `-` (`person-` gives `person-x7k2q`) because the random suffix ends the name; it may be
 * longer than a name since generateName() truncates it. Everything else follows the name rule.
 */
export function validateGenerateName(prefix: unknown, path = '/metadata/generateName'): FieldError[] {
  if (typeof prefix !== 'string') return [{ path, message: 'must be a string' }];
  if (prefix === '') return [{ path, message: 'must not be empty' }];
  const problems: string[] = [];
  if (!/^[-a-z0-9]*$/.test(prefix)) problems.push("must contain only lowercase letters, digits and '-'");
  if (prefix.startsWith('-')) problems.push('must start with a lowercase letter or digit');
  return problems.map((message) => ({ path, message }));
}

/**
 * Messages for a qualified name `[<prefix>/]<name>`: label and annotation keys, finalizers. The prefix is a DNS
 * subdomain of at most 253 characters, the name at most 63 characters.
 */
export function qualifiedNameProblems(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) return ["must have at most one '/' (between an optional prefix and the name)"];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  const problems: string[] = [];
  if (parts.length === 2) problems.push(...subdomainProblems(parts[0]!).map((m) => `prefix ${m}`));
  if (name === '') {
    problems.push('name must not be empty');
  } else {
    if (name.length > MAX_LABEL_NAME_LENGTH) {
      problems.push(`name must be at most ${MAX_LABEL_NAME_LENGTH} characters (has ${name.length})`);
    }
    if (!LABEL_NAME_PATTERN.test(name)) {
      problems.push(
        "name must start and end with a letter or digit and contain only letters, digits, '-', '_' and '.'",
      );
    }
  }
  return problems;
}
