import { createFileRoute } from '@tanstack/react-router';
import { CommunicationImportPage } from '../../features/communication-imports/components/CommunicationImportPage.tsx';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { requireOwner } from '../../features/current-user/require-owner.ts';

export const Route = createFileRoute('/_authenticated/labels/communications/import')({
  staticData: { title: '活動記録のインポート' },
  beforeLoad: ({ context }) => {
    requireFeature(context.user, 'labels');
    requireFeature(context.user, 'communications');
    // Imports are an owner's (docs/decisions.md "Roles"), as POST /imports/… is.
    requireOwner(context.user);
  },
  component: CommunicationImportPage,
});
