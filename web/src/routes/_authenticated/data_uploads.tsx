import { createFileRoute } from '@tanstack/react-router';
import { ApiError } from '../../api/api-errors.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { DataUploadsPage } from '../../features/data-uploads/components/DataUploadsPage.tsx';

export const Route = createFileRoute('/_authenticated/data_uploads')({
  staticData: { title: 'データアップロード' },
  beforeLoad: ({ context }) => {
    requireFeature(context.user, 'data_uploads');
    // Uploads are for owners (docs/decisions.md): a member gets the 403 page, as the endpoints answer.
    if (context.user?.role !== 'owner') throw new ApiError(403, 'この操作を行う権限がありません');
  },
  component: DataUploadsPage,
});
