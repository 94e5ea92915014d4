/** 元号 by its initial and its kanji, with the Gregorian year before its first year. */
const eras: Record<string, { offset: number; name: string }> = {
  R: { offset: 2018, name: '令和' },
  H: { offset: 1988, name: '平成' },
  S: { offset: 1925, name: '昭和' },
  T: { offset: 1911, name: '大正' },
  M: { offset: 1867, name: '明治' },
};
const eraByKanji: Record<string, string> = {
  令和: 'R',
  平成: 'H',
  昭和: 'S',
  大正: 'T',
  明治: 'M',
  令: 'R',
  平: 'H',
  昭: 'S',
};

function iso(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1868 || year > 2200) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const compact = /^(\d{4})(\d{2})(\d{2})$/;
const separated = /^(\d{4})[/\-.年](\d{1,2})[/\-.月](\d{1,2})日?$/;
const wareki = /^(令和|平成|昭和|大正|明治|令|平|昭|[RHSTM])(元|\d{1,2})[/\-.年](\d{1,2})[/\-.月](\d{1,2})日?$/;
const warekiCompact = /^([RHSTM])(\d{2})(\d{2})(\d{2})$/;
// Some exports append a time ("2024/04/01 00:00:00"); the date part is what counts.
const trailingTime = /[ T]\d{1,2}:\d{2}(:\d{2})?(\.\d+)?$/;
// Excel's 「yyyy/mm/dd(aaa)」 format and many reception systems print the weekday after the date
// ("2024/04/01(月)", "R6.4.1（月曜日）", "2024/04/01 (Mon)"); the date alone says the day, so it is dropped.
const trailingWeekday = /\(([日月火水木金土](曜日?)?|SUN|MON|TUE|WED|THU|FRI|SAT)\)$/;

/**
 * Reads a date as hospitals write it in lists: YYYYMMDD, YYYY/MM/DD (also - . and 年月日), and 和暦
 * (R6.4.1, R06/04/01, 令和6年4月1日, 令和元年5月1日, H31.4.30, S64.1.7, R060401). Full-width digits and
 * lower-case era letters are accepted, and so are a time and a weekday after the date ("2024/04/01(月) 9:30").
 * Returns ISO `YYYY-MM-DD`, or null when it is not a real date.
 * A 和暦 year past its era's end (平成31年5月1日) is converted, not refused: the day is unambiguous.
 */
export function parseListDate(text: string): string | null {
  const s = text
    .normalize('NFKC')
    .trim()
    .toUpperCase()
    .replace(trailingTime, '')
    .replace(/\s+/g, '')
    .replace(trailingWeekday, '');
  if (s === '') return null;
  let m = compact.exec(s) ?? separated.exec(s);
  if (m) return iso(Number(m[1]), Number(m[2]), Number(m[3]));
  m = wareki.exec(s);
  if (m) {
    const era = eras[m[1]!.length === 1 ? m[1]! : eraByKanji[m[1]!]!]!;
    const year = m[2] === '元' ? 1 : Number(m[2]);
    if (year < 1) return null;
    return iso(era.offset + year, Number(m[3]), Number(m[4]));
  }
  m = warekiCompact.exec(s);
  if (m) {
    const year = Number(m[2]);
    if (year < 1) return null;
    return iso(eras[m[1]!]!.offset + year, Number(m[3]), Number(m[4]));
  }
  return null;
}

/**
 * A DPC file date: YYYYMMDD. `00000000`, `99999999` and empty mean "none" (still admitted, unknown)
 * and give null; so does a partial date with month or day 00.
 */
export function parseDpcDate(text: string): string | null {
  const m = compact.exec(text.trim());
  if (!m) return null;
  return iso(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** True when the cell is a DPC "no date" placeholder rather than a malformed date. */
export function isDpcNoDate(text: string): boolean {
  const s = text.trim();
  return s === '' || s === '00000000' || s === '99999999';
}

/** `YYYY-MM-DD` → `YYYYMMDD`, the form DPC keys use. */
export function compactDate(isoDate: string): string {
  return isoDate.slice(0, 4) + isoDate.slice(5, 7) + isoDate.slice(8, 10);
}
