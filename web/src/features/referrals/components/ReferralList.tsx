import { Stack, Table, Text, Tooltip } from '@mantine/core';
import type { HospitalAdmission, Referral } from '@renkei/contracts';
import { formatDate } from '../../../app/dates.ts';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { noWrap } from '../../../ui/table-styles.ts';

/** One stay as one line: dates, department, diagnosis, operation, DPC (its MDC's name, the only name known). */
export function admissionSummary(a: HospitalAdmission): string {
  const parts = [`${formatDate(a.admission_date)}入院${a.discharge_date ? `〜${formatDate(a.discharge_date)}` : ''}`];
  if (a.department) parts.push(a.department);
  if (a.icd10_name || a.icd10_code) parts.push(`${a.icd10_name ?? ''}${a.icd10_code ? `（${a.icd10_code}）` : ''}`);
  if (a.kcode)
    parts.push(
      `手術 ${a.kcode}${a.operation_name ? ` ${a.operation_name}` : ''}${a.operation_date ? `（${formatDate(a.operation_date)}）` : ''}`,
    );
  if (a.dpc_code) parts.push(`DPC ${a.dpc_code}${a.dpc_name ? `（${a.dpc_name}）` : ''}`);
  return parts.join(' ');
}

/**
 * Each referral with the stays that followed it (department, diagnosis, operation, DPC) and its reverse
 * referral. Entries made by hand can be corrected or withdrawn; imported rows belong to their files.
 */
export function ReferralList({
  referrals,
  onEdit,
  onDelete,
}: {
  referrals: Referral[];
  onEdit?: (referral: Referral) => void;
  onDelete?: (referral: Referral) => void;
}) {
  if (referrals.length === 0)
    return (
      <Text size="sm" c="dimmed">
        この医療機関からの紹介はまだありません。紹介リストは「データアップロード」から取り込めます。
      </Text>
    );
  return (
    <Table striped fz="sm" data-testid="referral-list">
      <Table.Thead>
        <Table.Tr style={noWrap}>
          <Table.Th>紹介日</Table.Th>
          <Table.Th>患者ID</Table.Th>
          <Table.Th>紹介先診療科</Table.Th>
          <Table.Th>紹介元医師</Table.Th>
          <Table.Th>入院・手術</Table.Th>
          <Table.Th>逆紹介</Table.Th>
          <Table.Th data-print-hide />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {referrals.map((r) => (
          <Table.Tr key={r.id} data-testid="referral-row">
            <Table.Td style={noWrap}>{formatDate(r.referral_date)}</Table.Td>
            <Table.Td style={noWrap}>{r.patient_id}</Table.Td>
            <Table.Td style={noWrap}>
              <ReferralDepartment referral={r} />
            </Table.Td>
            <Table.Td style={noWrap}>{r.doctor_name_from ?? ''}</Table.Td>
            <Table.Td>
              <Stack gap={2}>
                {r.hospital_admissions.map((a) => (
                  <Text key={a.id} size="xs" data-testid="referral-admission">
                    {admissionSummary(a)}
                  </Text>
                ))}
              </Stack>
            </Table.Td>
            <Table.Td style={noWrap}>
              {r.reverse_referral ? formatDate(r.reverse_referral.reverse_referral_date) : ''}
            </Table.Td>
            <Table.Td data-print-hide>
              {r.entered_by_hand && onEdit && onDelete && (
                <EditDeleteButtons compact onEdit={() => onEdit(r)} onDelete={() => onDelete(r)} />
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * The own department, or, when the list named one that is none of them, that name as written — marked, so
 * nobody takes it for a department the figures by 自院診療科 count under (they count it as 未設定).
 */
function ReferralDepartment({ referral }: { referral: Referral }) {
  if (referral.referral_department) return <>{referral.referral_department.name}</>;
  const written = referral.referral_department_as_written;
  if (!written) return null;
  return (
    <Tooltip
      label="自院診療科に登録されていない名称です（集計では診療科未設定）。自院診療科にこの名称を追加すると、取り込み済みの行も対応づけられます。"
      multiline
      w={280}
      withArrow
      events={{ hover: true, focus: true, touch: true }}
    >
      <Text component="span" size="sm" c="dimmed" tabIndex={0} data-testid="referral-department-as-written">
        {written}（未登録）
      </Text>
    </Tooltip>
  );
}
