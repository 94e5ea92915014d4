import { Badge, Button, Group, Text } from '@mantine/core';
import { FlexRender, tableFeatures, useTable, type ColumnDef } from '@tanstack/react-table';
import type { Account } from '@renkei/contracts';
import { useMemo } from 'react';
import { formatDateTime } from '../../../app/dates.ts';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';

const features = tableFeatures({});

export interface AccountTableProps {
  accounts: Account[];
  /** The signed-in owner: they cannot delete themselves. */
  selfId: string;
  onEdit: (account: Account) => void;
  onDelete: (account: Account) => void;
  onResend: (account: Account) => void;
}

export function AccountTable({ accounts, selfId, onEdit, onDelete, onResend }: AccountTableProps) {
  const columns = useMemo<ColumnDef<typeof features, Account>[]>(
    () => [
      { id: 'username', accessorKey: 'username', header: '氏名' },
      { id: 'email', accessorFn: (a) => a.email ?? '', header: 'メールアドレス' },
      { id: 'login_name', accessorFn: (a) => a.login_name ?? '', header: 'ログインID' },
      {
        id: 'role',
        accessorKey: 'role',
        header: '権限',
        cell: ({ row }) => (row.original.role === 'owner' ? 'オーナー' : 'メンバー'),
      },
      {
        id: 'last_login_date',
        accessorKey: 'last_login_date',
        header: '最終ログイン',
        cell: ({ row }) => formatDateTime(row.original.last_login_date) || '未ログイン',
      },
      {
        id: 'is_confirmed',
        accessorKey: 'is_confirmed',
        header: '登録',
        cell: ({ row }) =>
          row.original.is_confirmed ? (
            <Badge color="teal" variant="light">
              登録済み
            </Badge>
          ) : (
            <Group gap={4} wrap="nowrap">
              <Badge color="yellow" variant="light">
                招待中
              </Badge>
              {row.original.email && (
                <Button size="compact-xs" variant="subtle" onClick={() => onResend(row.original)}>
                  招待メールを再送
                </Button>
              )}
            </Group>
          ),
      },
      {
        id: 'flags',
        header: '利用機能',
        cell: ({ row }) =>
          [row.original.enabled_crm && 'CRM', row.original.enabled_mc_map && '診療圏マップ']
            .filter(Boolean)
            .join('・') || 'なし',
      },
      {
        id: 'actions',
        header: '操作',
        cell: ({ row }) =>
          row.original.id === selfId ? (
            <Button size="xs" variant="light" onClick={() => onEdit(row.original)}>
              編集
            </Button>
          ) : (
            <EditDeleteButtons onEdit={() => onEdit(row.original)} onDelete={() => onDelete(row.original)} />
          ),
      },
    ],
    [selfId, onEdit, onDelete, onResend],
  );
  const table = useTable({ features, columns, data: accounts });

  if (accounts.length === 0) return <Text c="dimmed">アカウントはまだありません。「招待」から追加してください。</Text>;

  return (
    <div style={{ overflowX: 'auto' }}>
      <table className="renkei-table" data-testid="account-table">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id}>
                  <FlexRender header={header} />
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-account-name={row.original.username}>
              {row.getAllCells().map((cell) => (
                <td key={cell.id}>
                  <FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
