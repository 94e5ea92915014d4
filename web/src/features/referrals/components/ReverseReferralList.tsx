import { Table, Text } from '@mantine/core';
import type { ListedReverseReferral } from '@renkei/contracts';
import { formatDate } from '../../../app/dates.ts';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';

/**
 * The reverse referrals (逆紹介) sent back to the institution, newest first. Entries made by hand can
 * be corrected or withdrawn; imported rows belong to their files.
 */
export function ReverseReferralList({
  reverseReferrals,
  onEdit,
  onDelete,
}: {
  reverseReferrals: ListedReverseReferral[];
  onEdit: (entry: ListedReverseReferral) => void;
  onDelete: (entry: ListedReverseReferral) => void;
}) {
  if (reverseReferrals.length === 0)
    return (
      <Text size="sm" c="dimmed">
        この医療機関への逆紹介はまだありません。逆紹介リストは「データアップロード」から取り込めます。
      </Text>
    );
  return (
    <Table striped fz="sm" data-testid="reverse-referral-list">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>逆紹介日</Table.Th>
          <Table.Th>患者ID</Table.Th>
          <Table.Th>自院診療科</Table.Th>
          <Table.Th>管理番号</Table.Th>
          <Table.Th>登録</Table.Th>
          <Table.Th />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {reverseReferrals.map((v) => (
          <Table.Tr key={v.id} data-testid="reverse-referral-row">
            <Table.Td>{formatDate(v.reverse_referral_date)}</Table.Td>
            <Table.Td>{v.patient_id}</Table.Td>
            <Table.Td>{v.specialty?.name ?? ''}</Table.Td>
            <Table.Td>{v.control_id ?? ''}</Table.Td>
            <Table.Td>{v.entered_by_hand ? '手入力' : '取り込み'}</Table.Td>
            <Table.Td>
              {v.entered_by_hand && <EditDeleteButtons compact onEdit={() => onEdit(v)} onDelete={() => onDelete(v)} />}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
