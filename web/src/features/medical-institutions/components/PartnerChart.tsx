import { Button, Group, Table, Text } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { formatDate, formatDateTime } from '../../../app/dates.ts';
import { groupByDivision } from '../../doctors/components/DoctorList.tsx';
import { doctorQueries } from '../../doctors/doctors.queries.ts';
import { displayLabelValue } from '../../labels/label-values.ts';
import { labelQueries } from '../../labels/labels.queries.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { runningStatusLabel } from '../labels-ja.ts';
import { institutionQueries } from '../medical-institutions.queries.ts';
import { PartnerChartVocs } from '../../vocs/components/PartnerChartVocs.tsx';
import { PartnerChartReferralFigures } from '../../referrals/components/InstitutionReferralFigures.tsx';
import { InstitutionOpenTasks } from '../../tasks/components/InstitutionOpenTasks.tsx';
import { InstitutionRecentCommunications } from '../../communications/components/InstitutionRecentCommunications.tsx';
import { ButtonLink } from './router-links.tsx';
import classes from './PartnerChart.module.css';

// The frame (header, menu, footer) has no place on paper; only the chart prints.
const printStyle = `
@page { size: A4; margin: 12mm; }
@media print {
  .mantine-AppShell-header, .mantine-AppShell-navbar, .mantine-AppShell-footer, [data-print-hide] { display: none !important; }
  .mantine-AppShell-main { padding: 0 !important; min-height: 0 !important; }
  body { background: #fff !important; }
}`;

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w="22%">{label}</Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className={classes.section}>
      <Text fw={700} className={classes.heading}>
        {title}
      </Text>
      {children}
    </section>
  );
}

/** The partner chart (連携先カルテ): one printable A4 page of what the tenant knows about the institution. */
export function PartnerChart({ id }: { id: string }) {
  const { api } = useServices();
  const { data: mi } = useSuspenseQuery(institutionQueries.summary(api, id));
  const doctors = useQuery(doctorQueries.list(api, id));
  const labels = useQuery({ ...labelQueries.institutionLabels(api), retry: false });
  const ownDepartments = useQuery(referenceDataQueries.ownDepartments(api));
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const sortedLabels = [...(labels.data ?? [])].sort((a, b) => a.order - b.order);

  return (
    <div className={classes.sheet} data-testid="partner-chart">
      <style>{printStyle}</style>
      <Group justify="space-between" mb="sm" data-print-hide>
        <ButtonLink to="/crms/$id" params={{ id }} variant="default" size="xs">
          医療機関ページに戻る
        </ButtonLink>
        <Button size="xs" onClick={() => window.print()} data-testid="print">
          印刷
        </Button>
      </Group>
      <header className={classes.title}>
        <Text fz={22} fw={700}>
          連携先カルテ
        </Text>
        <Text size="xs" c="dimmed">
          出力日 {formatDate(new Date().toISOString())}
        </Text>
      </header>
      <Text fz={18} fw={700}>
        {mi.name}
      </Text>
      <Text size="xs" c="dimmed" mb="xs">
        {mi.kana}
      </Text>
      <Table withTableBorder withColumnBorders className={classes.table}>
        <Table.Tbody>
          <Row label="医療機関コード">{mi.code}</Row>
          <Row label="運営状況">{runningStatusLabel[mi.running_status]}</Row>
          <Row label="住所">
            {mi.postal_code && `〒${mi.postal_code} `}
            {mi.address}
          </Row>
          <Row label="電話番号">{mi.tel}</Row>
          <Row label="開設者 / 管理者">{[mi.founder_name, mi.administrator_name].filter(Boolean).join(' / ')}</Row>
          <Row label="施設区分">
            {mi.facility_type?.name}
            {mi.bed_count !== null && `（${mi.bed_count}床）`}
          </Row>
          <Row label="診療科">{mi.departments.map((d) => d.name).join('、')}</Row>
          <Row label="タグ">{mi.tags.map((t) => t.name).join('、')}</Row>
          {tenant.data?.enabled_phase && (
            <Row label="フェーズ">
              {mi.phase?.phase_name ?? '未設定'}
              {mi.phase?.changed_at &&
                `（${formatDateTime(mi.phase.changed_at)} ${mi.phase.changed_user?.name ?? ''}）`}
            </Row>
          )}
          {mi.last_visit_date && <Row label="最終訪問日">{formatDate(mi.last_visit_date)}</Row>}
        </Table.Tbody>
      </Table>

      {sortedLabels.length > 0 && (
        <Section title="ラベル">
          <Table withTableBorder withColumnBorders className={classes.table}>
            <Table.Tbody>
              {sortedLabels.map((l) => (
                <Row key={l.id} label={l.name}>
                  <span style={{ whiteSpace: 'pre-wrap' }}>
                    {displayLabelValue(
                      l,
                      mi.label_values.find((v) => v.label_id === l.id),
                      ownDepartments.data,
                    )}
                  </span>
                </Row>
              ))}
            </Table.Tbody>
          </Table>
        </Section>
      )}

      {/* In place of the summary's bare 紹介数 (it has no period): this 年度's figures against last 年度's. */}
      <PartnerChartReferralFigures id={id} section={Section} tableClassName={classes.table} />

      <Section title="医師">
        {(doctors.data ?? []).length === 0 ? (
          <Text size="sm">登録なし</Text>
        ) : (
          <Table withTableBorder withColumnBorders className={classes.table}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>所属</Table.Th>
                <Table.Th>役職</Table.Th>
                <Table.Th>氏名</Table.Th>
                <Table.Th>連絡先</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {groupByDivision(doctors.data ?? []).flatMap((g) =>
                g.doctors.map((d) => (
                  <Table.Tr key={d.id}>
                    <Table.Td>{g.division}</Table.Td>
                    <Table.Td>{d.position}</Table.Td>
                    <Table.Td>
                      {d.name} {d.honorific}
                    </Table.Td>
                    <Table.Td>{[d.phone_number, d.email].filter(Boolean).join(' / ')}</Table.Td>
                  </Table.Tr>
                )),
              )}
            </Table.Tbody>
          </Table>
        )}
      </Section>

      {/* Side by side: short lists and notes, each in half the width, keep the sheet to one page. */}
      <div className={classes.pair}>
        <Section title="最近のコミュニケーション">
          <InstitutionRecentCommunications id={id} compact />
        </Section>
        <Section title="未完了のタスク">
          <InstitutionOpenTasks id={id} compact />
        </Section>
      </div>
      <PartnerChartVocs institutionId={id} section={Section} tableClassName={classes.table} />

      <div className={classes.pair}>
        <Section title="メモ">
          <Text size="sm" className={classes.note}>
            {mi.memo.content || 'なし'}
          </Text>
        </Section>
        <Section title="特記事項">
          <Text size="sm" className={classes.note}>
            {mi.special_note.content || 'なし'}
          </Text>
        </Section>
      </div>
    </div>
  );
}
