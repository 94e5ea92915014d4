import dayjs from 'dayjs';
import 'dayjs/locale/ja';
import utc from 'dayjs/plugin/utc';
import timezone from 'dayjs/plugin/timezone';

dayjs.extend(utc);
dayjs.extend(timezone);
dayjs.locale('ja');

const appTimeZone = 'Asia/Tokyo';

/** Date and time as a Japanese user reads it, always in Asia/Tokyo whatever the browser's zone. */
export function formatDateTime(iso: string | null | undefined): string {
  return iso ? dayjs(iso).tz(appTimeZone).format('YYYY/MM/DD HH:mm') : '';
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? dayjs(iso).tz(appTimeZone).format('YYYY/MM/DD') : '';
}
