import { Badge, Group, Stack, Text } from '@mantine/core';
import type { MedicalInstitution } from '@renkei/contracts';
import { formatDate } from '../../../app/dates.ts';
import { RunningStatusBadge } from './RunningStatusBadge.tsx';
import { CardLink } from './router-links.tsx';

/** The phone layout of the results: one card per institution, the whole card a link. */
/** `referralSpan`: what the 紹介数 counts (今年度 …), said on each card since a phone shows no period. */
export function InstitutionCardList({ rows, referralSpan }: { rows: MedicalInstitution[]; referralSpan: string }) {
  return (
    <Stack gap="xs" data-testid="institution-cards">
      {rows.map((mi) => (
        <CardLink
          key={mi.id}
          withBorder
          padding="sm"
          to="/crms/$id"
          params={{ id: mi.id }}
          data-testid="institution-card"
          data-institution-name={mi.name}
        >
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <Text fw={600} lineClamp={2}>
              {mi.name}
            </Text>
            <RunningStatusBadge status={mi.running_status} />
          </Group>
          <Text size="sm" c="dimmed">
            {mi.address}
          </Text>
          {mi.tel && <Text size="sm">{mi.tel}</Text>}
          <Group gap={4} mt={4}>
            {mi.phase?.phase_name && (
              <Badge size="sm" color="grape" variant="light">
                {mi.phase.phase_name}
              </Badge>
            )}
            {mi.tags.map((t) => (
              <Badge key={t.id} size="sm" variant="outline">
                {t.name}
              </Badge>
            ))}
          </Group>
          {(mi.last_visit_date || mi.referral_count !== null) && (
            <Text size="xs" c="dimmed" mt={4}>
              {mi.referral_count !== null && `${referralSpan}の紹介 ${mi.referral_count}件 `}
              {mi.last_visit_date && `最終訪問 ${formatDate(mi.last_visit_date)}`}
            </Text>
          )}
        </CardLink>
      ))}
    </Stack>
  );
}
