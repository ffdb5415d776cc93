import { client, errorMessage } from '@svc/console-shared';
import { AUDIT_EVENTS_PATH } from '@svc/plugin-api';
import { reactive, ref } from 'vue';

/** One audit event as the list shows it (`audit.k8s.io/v1` Event, the fields read here). */
export interface AuditEvent {
  auditID: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  objectRef?: { resource?: string; name?: string; apiGroup?: string; namespace?: string };
  responseStatus?: { code: number };
  requestReceivedTimestamp: string;
}

interface EventList {
  items: AuditEvent[];
  metadata: { continue?: string };
}

/** The filters of the audit API (docs/api.md "Audit"); times as `datetime-local` inputs give them, in UTC. */
export interface AuditFilters {
  user: string;
  verb: string;
  resource: string;
  name: string;
  since: string;
  until: string;
}

export const AUDIT_PAGE_SIZE = 50;

/** A `datetime-local` value (read as UTC, as the page shows times) in RFC 3339, or nothing. */
export function rfc3339Of(local: string): string | undefined {
  if (!local) return undefined;
  const at = new Date(`${local}Z`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/**
 * The audit log a page at a time, newest first, with the API's filters: the server's `continue` tokens carry the
 * pages forward, and the tokens of the pages seen are kept so "Previous" goes back without counting.
 */
export function useAuditEvents() {
  const filters = reactive<AuditFilters>({ user: '', verb: '', resource: '', name: '', since: '', until: '' });
  const applied = ref<Record<string, string>>({});
  const events = ref<AuditEvent[]>([]);
  const loading = ref(false);
  const error = ref('');
  /** The continue token of each page seen; the last is the shown page's. */
  const tokens = ref<(string | undefined)[]>([undefined]);
  const next = ref<string>();

  async function read(token: string | undefined) {
    loading.value = true;
    try {
      const query: Record<string, string | number> = { ...applied.value, limit: AUDIT_PAGE_SIZE };
      if (token) query.continue = token;
      const list = await client.request<EventList>('GET', AUDIT_EVENTS_PATH, { query });
      events.value = list.items;
      next.value = list.metadata.continue || undefined;
      error.value = '';
    } catch (e) {
      error.value = errorMessage(e);
    } finally {
      loading.value = false;
    }
  }

  function search() {
    const query: Record<string, string> = {};
    for (const key of ['user', 'verb', 'resource', 'name'] as const) {
      const value = filters[key].trim();
      if (value) query[key] = value;
    }
    const since = rfc3339Of(filters.since);
    const until = rfc3339Of(filters.until);
    if (since) query.since = since;
    if (until) query.until = until;
    applied.value = query;
    tokens.value = [undefined];
    return read(undefined);
  }

  function clear() {
    Object.assign(filters, { user: '', verb: '', resource: '', name: '', since: '', until: '' });
    return search();
  }

  function nextPage() {
    if (!next.value) return;
    tokens.value = [...tokens.value, next.value];
    return read(next.value);
  }

  function previousPage() {
    if (tokens.value.length < 2) return;
    tokens.value = tokens.value.slice(0, -1);
    return read(tokens.value.at(-1));
  }

  return { filters, events, loading, error, next, tokens, search, clear, nextPage, previousPage };
}
