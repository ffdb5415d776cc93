/**
 * UI permissions (`plugin:<plugin>:<scope>`, from `users/-/permissions`) decide which menus, routes and page parts a
 * user sees; `*` (the super administrator's) allows every one. With `any`, one of `required` is enough; otherwise all.
 * Hiding is a courtesy: svc decides every request itself. Pure.
 */
export function allows(held: readonly string[], required: readonly string[] = [], any = false): boolean {
  if (required.length === 0 || held.includes('*')) return true;
  const has = (permission: string) => held.includes(permission);
  return any ? required.some(has) : required.every(has);
}
