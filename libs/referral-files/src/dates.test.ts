import { describe, expect, it } from 'vitest';
import { parseDpcDate, parseListDate } from './dates.ts';

describe('parseListDate', () => {
  it.each([
    ['20240401', '2024-04-01'],
    ['2024/4/1', '2024-04-01'],
    ['2024-04-01', '2024-04-01'],
    ['2024年4月1日', '2024-04-01'],
    ['２０２４／０４／０１', '2024-04-01'],
    ['2024/04/01 00:00:00', '2024-04-01'],
    ['R6.4.1', '2024-04-01'],
    ['r06/04/01', '2024-04-01'],
    ['Ｒ６．４．１', '2024-04-01'],
    ['R060401', '2024-04-01'],
    ['令和6年4月1日', '2024-04-01'],
    ['令和元年5月1日', '2019-05-01'],
    ['R1.5.1', '2019-05-01'],
    ['H31.4.30', '2019-04-30'],
    ['平成31年4月30日', '2019-04-30'],
    ['平成元年1月8日', '1989-01-08'],
    ['S64.1.7', '1989-01-07'],
    ['昭和40年12月3日', '1965-12-03'],
    // Excel's yyyy/mm/dd(aaa) and reception systems that print the weekday after the date.
    ['2024/04/01(月)', '2024-04-01'],
    ['2024/4/1（月）', '2024-04-01'],
    ['R6.4.1(月曜日)', '2024-04-01'],
    ['令和6年4月1日（月）', '2024-04-01'],
    ['2024/04/01 (Mon)', '2024-04-01'],
    ['2024/04/01(月) 09:30', '2024-04-01'],
  ])('reads %s', (text, iso) => {
    expect(parseListDate(text)).toBe(iso);
  });

  it.each([
    '',
    '2024/02/30',
    'R6.13.1',
    'R0.4.1',
    '令和',
    'abc',
    '2024/4',
    '45383',
    '2024/04/01(月',
    '(月)',
    '2024/04/01(休)',
  ])('refuses %s', (text) => {
    expect(parseListDate(text)).toBeNull();
  });
});

describe('parseDpcDate', () => {
  it('reads YYYYMMDD and treats placeholders as no date', () => {
    expect(parseDpcDate('20240401')).toBe('2024-04-01');
    expect(parseDpcDate('00000000')).toBeNull();
    expect(parseDpcDate('99999999')).toBeNull();
    expect(parseDpcDate('20240400')).toBeNull();
    expect(parseDpcDate('2024/04/01')).toBeNull();
  });
});
