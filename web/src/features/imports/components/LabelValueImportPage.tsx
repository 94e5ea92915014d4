import { List } from '@mantine/core';
import { endpoints } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { BackLinkButton } from '../../../frame/BackLinkButton.tsx';
import { importQueries } from '../imports.queries.ts';
import { ImportPage } from './ImportPage.tsx';

export function LabelValueImportPage() {
  const { api } = useServices();
  return (
    <ImportPage
      title="医療機関ラベル値のインポート"
      headerAction={<BackLinkButton label="ラベル管理へ戻る" />}
      prepareTitle="1. テンプレートをダウンロード"
      modes={[
        {
          value: 'label_values',
          label: 'ラベル値',
          endpoint: endpoints.importLabelValues,
          uploadLabel: 'インポート',
          template: {
            endpoint: endpoints.labelValueImportTemplate,
            fallbackName: 'medical_institution_label_values.csv',
          },
          instructions: (
            <List size="sm">
              <List.Item>
                テンプレートには現在の医療機関ラベルが見出しとして入っています。見出しに合わせて値を記入してください。
              </List.Item>
              <List.Item>Excelで編集する場合は Shift_JIS 版を、その他のツールでは UTF-8 版をお使いください。</List.Item>
              <List.Item>誤りのある行は取り込まれず、行番号付きのエラーとして履歴に表示されます。</List.Item>
            </List>
          ),
        },
      ]}
      listQuery={(page, awaitedId) => importQueries.labelValueImports(api, page, awaitedId)}
      listKey={importQueries.all}
      // A finished import changed label values: institution pages must not show the old ones.
      staleAfterImport={['medical-institutions']}
    />
  );
}
