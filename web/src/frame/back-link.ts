/** Spec §2 back-link rules; an explicit `backLink` search parameter overrides them. */
export function resolveBackLink(pathname: string, search: Record<string, unknown>): string | null {
  const explicit = search.backLink;
  if (typeof explicit === 'string' && explicit.startsWith('/') && !explicit.startsWith('//')) return explicit;
  const path = pathname.replace(/\/+$/, '');
  let m: RegExpMatchArray | null;
  if ((m = path.match(/^\/crms\/([^/]+)\/(tasks|referrals|communications)$/))) return `/crms/${m[1]}`;
  if (/^\/emails\/[^/]+\/reports$/.test(path) || path === '/emails/new') return '/emails';
  if (/^\/emails\/[^/]+\/edit$/.test(path)) return '/emails?status=unsent';
  if (path === '/labels/medical_institutions/import') return '/labels?tab=MedicalInstitutionLabels';
  if (path === '/labels/communications/import') return '/labels?tab=CommunicationLabels';
  return null;
}
