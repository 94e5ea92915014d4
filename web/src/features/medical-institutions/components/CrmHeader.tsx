import { Anchor, Badge, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { MedicalInstitutionSummary } from '@renkei/contracts';
import type { ReactNode } from 'react';
import { prefectureName } from '../../reference-data/prefectures.ts';
import { InstitutionSegmentBadge } from '../../referral-settings/components/InstitutionSegmentBadge.tsx';
import { InstitutionTagsEditor } from './InstitutionTagsEditor.tsx';
import { PhaseSelect } from './PhaseSelect.tsx';
import { RunningStatusBadge } from './RunningStatusBadge.tsx';
import { ButtonLink } from './router-links.tsx';
import { useViewport } from '../../../frame/use-viewport.ts';
import { LogCommunicationButton } from '../../communications/components/LogCommunicationButton.tsx';

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm">{children || '—'}</Text>
    </div>
  );
}

export function CrmHeader({
  mi,
  enabledPhase,
  onError,
}: {
  mi: MedicalInstitutionSummary;
  enabledPhase: boolean;
  onError: (e: unknown) => void;
}) {
  // A phone is used standing at the clinic: logging the visit comes first, in thumb-sized buttons; on a
  // desk the recent-communications card beside the memo has it.
  const phone = useViewport() === 'phone';
  const size = phone ? 'md' : 'xs';
  return (
    <Paper withBorder p="md" data-testid="crm-header">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Group gap="xs">
              <Title order={2} fz="xl" data-testid="crm-name">
                {mi.name}
              </Title>
              <RunningStatusBadge status={mi.running_status} />
              {mi.group_medical_institution && (
                <Badge size="sm" variant="light">
                  グループ病院
                </Badge>
              )}
              <InstitutionSegmentBadge id={mi.id} />
            </Group>
            <Text size="xs" c="dimmed">
              {mi.kana}・医療機関コード {mi.code}
            </Text>
          </Stack>
          <Group gap="xs">
            {phone && <LogCommunicationButton institution={{ id: mi.id, name: mi.name }} size={size} mih={44} />}
            {/* The referral page is linked from the figures card under the header (紹介実績を見る), not twice. */}
            <ButtonLink
              to="/crms/$id/communications"
              params={{ id: mi.id }}
              search={{ page: 1, sort: 'desc' }}
              variant="default"
              size={size}
              mih={phone ? 44 : undefined}
            >
              コミュニケーション
            </ButtonLink>
            <ButtonLink
              to="/crms/$id"
              params={{ id: mi.id }}
              search={{ view: 'karte' }}
              variant="default"
              size={size}
              mih={phone ? 44 : undefined}
              data-testid="open-karte"
            >
              連携先カルテ
            </ButtonLink>
          </Group>
        </Group>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="xs">
          <Fact label="住所">
            {mi.postal_code && `〒${mi.postal_code} `}
            {mi.prefecture && !mi.address.startsWith(prefectureName(mi.prefecture))
              ? prefectureName(mi.prefecture)
              : ''}
            {mi.address}
          </Fact>
          <Fact label="電話番号">{mi.tel && <Anchor href={`tel:${mi.tel}`}>{mi.tel}</Anchor>}</Fact>
          <Fact label="管理者">{mi.administrator_name}</Fact>
          <Fact label="最終訪問日">{mi.last_visit_date?.replaceAll('-', '/')}</Fact>
          <Fact label="施設区分">
            {mi.facility_type?.name}
            {mi.bed_count !== null && `（${mi.bed_count}床）`}
          </Fact>
        </SimpleGrid>
        <Group gap={4}>
          <Text size="sm" fw={500} mr={4}>
            診療科
          </Text>
          {mi.departments.length === 0 && (
            <Text size="sm" c="dimmed">
              —
            </Text>
          )}
          {mi.departments.map((d) => (
            <Badge key={d.id} variant="light" color="gray" size="sm">
              {d.name}
            </Badge>
          ))}
        </Group>
        <InstitutionTagsEditor institutionId={mi.id} tags={mi.tags} onError={onError} />
        {enabledPhase && <PhaseSelect institutionId={mi.id} phase={mi.phase} onError={onError} />}
      </Stack>
    </Paper>
  );
}
