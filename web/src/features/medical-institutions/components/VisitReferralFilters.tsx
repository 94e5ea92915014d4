import { Group, NumberInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { figureLabel } from '../filter-summary.ts';
import { referralFigures, type InstitutionFilters, type ReferralFigure } from '../search-state.ts';

type VisitMode = 'visited' | 'not_visited';
const visitModeLabel: Record<VisitMode, string> = {
  visited: '期間内に訪問あり',
  not_visited: '指定日以降訪問なし',
};

/** Messages of the ranges that cannot be searched (a minimum above its maximum), by the maximum's key. */
export function visitReferralErrors(f: InstitutionFilters): Partial<Record<string, string>> {
  const errors: Partial<Record<string, string>> = {};
  for (const figure of referralFigures) {
    const [min, max] = [f[`min_${figure}`], f[`max_${figure}`]];
    if (min !== undefined && max !== undefined && min > max)
      errors[`max_${figure}`] = `${figureLabel[figure]}の上限は下限以上にしてください`;
  }
  const p = f.visited_period;
  if (p && (!p.from || !p.to)) errors.visited_period = '開始日と終了日を入力してください';
  else if (p && p.from > p.to) errors.visited_period = '終了日は開始日以降の日付を指定してください';
  return errors;
}

/**
 * 最終訪問 (visited within a period, or not visited since a day) and the ranges of the 紹介数 figures
 * of the referral span chosen above the table.
 */
export function VisitReferralFilters({
  draft,
  onChange,
  errors,
}: {
  draft: InstitutionFilters;
  onChange: (next: InstitutionFilters) => void;
  errors: Partial<Record<string, string>>;
}) {
  const mode: VisitMode | null = draft.visited_period
    ? 'visited'
    : draft.not_visited_since !== undefined
      ? 'not_visited'
      : null;
  const setMode = (next: string | null) => {
    const { visited_period: _p, not_visited_since: _s, ...rest } = draft;
    if (next === 'visited') onChange({ ...rest, visited_period: { from: '', to: '' } });
    else if (next === 'not_visited') onChange({ ...rest, not_visited_since: '' });
    else onChange(rest);
  };
  const setBound = (key: `${'min' | 'max'}_${ReferralFigure}`, value: string | number) =>
    onChange({ ...draft, [key]: typeof value === 'number' ? value : undefined });

  return (
    <Stack gap="sm">
      <Stack gap={4}>
        <Select
          label="最終訪問"
          placeholder="指定なし"
          data={(Object.keys(visitModeLabel) as VisitMode[]).map((v) => ({ value: v, label: visitModeLabel[v] }))}
          value={mode}
          onChange={setMode}
          clearable
          data-testid="filter-visit-mode"
        />
        {draft.visited_period && (
          <Group grow gap="xs" align="flex-start">
            <TextInput
              size="xs"
              type="date"
              aria-label="訪問期間の開始日"
              value={draft.visited_period.from}
              onChange={(e) =>
                onChange({ ...draft, visited_period: { from: e.currentTarget.value, to: draft.visited_period!.to } })
              }
              error={errors.visited_period}
            />
            <TextInput
              size="xs"
              type="date"
              aria-label="訪問期間の終了日"
              value={draft.visited_period.to}
              onChange={(e) =>
                onChange({ ...draft, visited_period: { from: draft.visited_period!.from, to: e.currentTarget.value } })
              }
            />
          </Group>
        )}
        {draft.not_visited_since !== undefined && (
          <TextInput
            size="xs"
            type="date"
            aria-label="この日以降訪問なし"
            description="未訪問の医療機関も含みます"
            value={draft.not_visited_since}
            onChange={(e) => onChange({ ...draft, not_visited_since: e.currentTarget.value })}
            data-testid="filter-not-visited-since"
          />
        )}
      </Stack>
      {referralFigures.map((figure) => {
        const rate = figure === 'rate_of_referral_change';
        return (
          <Stack gap={4} key={figure}>
            <Text size="sm" fw={500}>
              {figureLabel[figure]}
              {rate ? '（%）' : ''}
            </Text>
            <Group grow gap="xs" align="flex-start">
              <NumberInput
                size="xs"
                aria-label={`${figureLabel[figure]}の下限`}
                placeholder="下限"
                allowDecimal={rate}
                min={rate ? -100 : 0}
                allowNegative={rate}
                suffix={rate ? '%' : undefined}
                value={draft[`min_${figure}`] ?? ''}
                onChange={(v) => setBound(`min_${figure}`, v)}
                data-testid={`filter-min-${figure}`}
              />
              <NumberInput
                size="xs"
                aria-label={`${figureLabel[figure]}の上限`}
                placeholder="上限"
                allowDecimal={rate}
                min={rate ? -100 : 0}
                allowNegative={rate}
                suffix={rate ? '%' : undefined}
                value={draft[`max_${figure}`] ?? ''}
                onChange={(v) => setBound(`max_${figure}`, v)}
                error={errors[`max_${figure}`]}
                data-testid={`filter-max-${figure}`}
              />
            </Group>
          </Stack>
        );
      })}
      <Text size="xs" c="dimmed">
        紹介数は表の上で選んだ期間の件数です。増減率は比較期間の紹介数が0件の医療機関には当てはまりません。
      </Text>
    </Stack>
  );
}
