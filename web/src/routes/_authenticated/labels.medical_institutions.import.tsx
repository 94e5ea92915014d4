import { createFileRoute } from '@tanstack/react-router';
import { LabelValueImportPage } from '../../features/imports/components/LabelValueImportPage.tsx';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { requireOwner } from '../../features/current-user/require-owner.ts';

export const Route = createFileRoute('/_authenticated/labels/medical_institutions/import')({
  staticData: { title: '医療機関ラベル値のインポート' },
  beforeLoad: ({ context }) => {
    requireFeature(context.user, 'labels');
    requireFeature(context.user, 'medical_institution_labels');
    // Imports are an owner's (docs/decisions.md "Roles"), as POST /imports/… is.
    requireOwner(context.user);
  },
  component: LabelValueImportPage,
});
