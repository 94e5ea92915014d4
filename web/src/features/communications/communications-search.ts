import type { CommunicationType } from '@renkei/contracts';
import { enumParam, intParam, isUuid, listParam, trimmedString, type SearchInput } from '../../app/search-params.ts';
import type { CommunicationsParams } from './components/CommunicationsPage.tsx';

const types: readonly CommunicationType[] = [
  'visit',
  'new_visit',
  'phone',
  'email',
  'postal_item',
  'event_attendance',
  'referral_acceptance',
  'refused_referral',
  'other',
];
const day = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);

/** The communications search of the URL; each piece falls back alone (an old link still opens). */
export function communicationsSearch(search: SearchInput): CommunicationsParams {
  const from = day(search.from);
  const to = day(search.to);
  const list = listParam(search.types, (v) => enumParam(v, types, undefined), types.length);
  const keyword = trimmedString(search.keyword, 1, 100);
  return {
    page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
    sort: enumParam(search.sort, ['asc', 'desc'], 'desc'),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(list ? { types: list } : {}),
    ...(isUuid(search.user_id) ? { user_id: search.user_id } : {}),
    ...(keyword ? { keyword } : {}),
  };
}
