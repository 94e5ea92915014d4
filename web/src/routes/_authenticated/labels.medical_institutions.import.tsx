import { createFileRoute } from '@tanstack/react-router';
import { LabelValueImportPage } from '../../features/imports/components/LabelValueImportPage.tsx';
import { requireFeature } from '../../features/require-feature.ts';

export const Route = createFileRoute('/_authenticated/labels/medical_institutions/import')({
  staticData: { title: '医療機関ラベル値のインポート' },
  beforeLoad: ({ context }) => {
    requireFeature(context.user, 'labels');
    requireFeature(context.user, 'medical_institution_labels');
  },
  component: LabelValueImportPage,
});
