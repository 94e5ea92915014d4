/**
 * The version of a whole list that is replaced at once (`PUT /phase_masters`), sent back as
 * `If-Match` so a save based on an outdated list is refused (409) instead of silently undoing
 * another owner's change. The list's GET keeps the spec's array shape, so the version is derived
 * from the content, the same way in the browser and in the services: a 53-bit hash of the ids, names
 * and descriptions in order (collisions only weaken a concurrency check; nothing is secret here).
 */
export function listVersion(items: readonly { id: string; name: string; description?: string | null }[]): string {
  const text = JSON.stringify(items.map((i) => [i.id, i.name, i.description ?? '']));
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `l${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

/** `listVersion` of the tenant's own departments (`PUT /own_medical_institution/departments`): ids, names, department codes. */
export function ownDepartmentsVersion(
  items: readonly { id: string; name: string; department_id: string | null }[],
): string {
  return listVersion(items.map((d) => ({ id: d.id, name: d.name, description: d.department_id })));
}
