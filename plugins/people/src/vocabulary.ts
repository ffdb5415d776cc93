/**
 * The people plugin's names: its API groups, kind, label and finalizer, spelled here once for its code (src/) and its
 * UI (ui/src/). Imports nothing, so the UI's build can take it as it is.
 */

/** The plugin's own group, and the version of all its groups. */
export const PEOPLE_GROUP = 'people.svc.run';
export const PEOPLE_VERSION = 'v1alpha1';
export const PEOPLE_API_VERSION = 'people.svc.run/v1alpha1';
/** Its console API (`GET …/stats`) and its personal-center API (a user's own persons). */
export const CONSOLE_API_VERSION = 'console.api.people.svc.run/v1alpha1';
export const USER_API_VERSION = 'uc.api.people.svc.run/v1alpha1';

export const PERSON_KIND = 'Person';

/** The label naming the user a person belongs to, set by the personal-center routes. */
export const OWNER_LABEL = 'people.svc.run/owner';
/** Held by every person until the reconciler has said farewell. */
export const FAREWELL_FINALIZER = 'people.svc.run/farewell';
