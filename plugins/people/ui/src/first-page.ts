import type { ListEnvelope, ListQuery } from '@svc/client';
import { hasPermission } from '@svc/console-shared';
import { type Person, persons } from './persons';

/** Persons shown a page at a time. */
export const PAGE_SIZE = 10;

/** The Persons page's list query: its page (from the first row's index), by name, with the applied selectors. */
export const personsQuery = (first: number, fieldSelector: string[]): ListQuery => ({
  page: first / PAGE_SIZE + 1,
  size: PAGE_SIZE,
  fieldSelector,
  sort: 'spec.name',
});

/** A first page asked for this long ago is not taken (a navigation that did not reach the page, left behind). */
const FRESH_MS = 10_000;
let pending: { at: number; page: Promise<ListEnvelope<Person>> } | undefined;

/**
 * Asks for the Persons page's first page as the route is entered, while the page's code (and its data table) is
 * still loading, so the rows come a round trip sooner. Only for those who may see it.
 */
export function prefetchFirstPage(): void {
  if (!hasPermission(['plugin:people:view'])) return;
  const page = persons().list(personsQuery(0, []));
  // Whoever takes it handles a failure; untaken, it must not be an unhandled rejection.
  page.catch(() => undefined);
  pending = { at: Date.now(), page };
}

/** The first page asked for on entering the route, once (undefined when none was, or it is stale). */
export function takeFirstPage(): Promise<ListEnvelope<Person>> | undefined {
  const found = pending;
  pending = undefined;
  return found && Date.now() - found.at < FRESH_MS ? found.page : undefined;
}
