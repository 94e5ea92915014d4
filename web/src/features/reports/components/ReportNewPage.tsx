import type { ReportKind } from '@renkei/contracts';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { emptyDefinition } from '../report-editor.ts';
import { reportKinds } from '../report-kinds.ts';
import { detailSearch, listSearch, useCreateReport } from '../reports.queries.ts';
import { reportFailure } from './report-failure.ts';
import { ReportEditor } from './ReportEditor.tsx';

/** `/<kind>/new`: a new report's editor; saved, it opens the report. */
export function ReportNewPage({ kind }: { kind: ReportKind }) {
  const info = reportKinds[kind];
  const navigate = useNavigate();
  const create = useCreateReport(kind);
  const onError = useMutationErrorHandler();
  const [initial] = useState(() => emptyDefinition(kind, new Date()));
  return (
    <ReportEditor
      kind={kind}
      initial={initial}
      onCancel={() => void navigate({ to: info.route, search: listSearch })}
      onSave={async (values) => {
        try {
          const saved = await create.mutateAsync(values);
          toast.success('レポートを作成しました');
          await navigate({ to: `${info.route}/$id` as const, params: { id: saved.id }, search: detailSearch });
        } catch (error) {
          reportFailure(error, onError);
        }
      }}
    />
  );
}
