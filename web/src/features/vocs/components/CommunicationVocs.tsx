import { Badge, Button, Group } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { Communication } from '@renkei/contracts';
import { lazy, Suspense, useRef, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { useViewport } from '../../../frame/use-viewport.ts';
import { toast } from '../../../app/toast.ts';
import { isApiError } from '../../../api/api-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { useCreateVoc, vocQueries, vocStatusColors, vocStatusLabels, type VocInputValues } from '../vocs.queries.ts';

const VocFormModal = lazy(() => import('./VocFormModal.tsx').then((m) => ({ default: m.VocFormModal })));

/** A communication's VOCs (each a link to /vocs) and 「VOCを登録」 for feedback heard in it. */
export function CommunicationVocs({ communication: c }: { communication: Communication }) {
  const { api } = useServices();
  // A thumb's target on a phone, as the card's other buttons.
  const phone = useViewport() === 'phone';
  const [open, setOpen] = useState(false);
  const groups = useQuery({ ...vocQueries.groups(api), enabled: open });
  const create = useCreateVoc();
  const onError = useMutationErrorHandler();
  const key = useRef(crypto.randomUUID());
  const institution = c.medical_institution;
  if (!institution) return null;

  const save = async (body: VocInputValues) => {
    try {
      await create.mutateAsync({ body, idempotencyKey: key.current });
      toast.success('VOCを登録しました');
      setOpen(false);
    } catch (error) {
      if (!isApiError(error) || error.status !== 422) {
        setOpen(false);
        onError(error);
      }
      throw error;
    }
  };

  return (
    <Group gap="xs" wrap="wrap">
      {c.vocs.map((v) => (
        <AnchorLink
          key={v.id}
          to="/vocs"
          search={{ page: 1, communication: c.id }}
          size="sm"
          data-testid="communication-voc"
        >
          VOC: {v.title}{' '}
          <Badge size="xs" variant="light" color={vocStatusColors[v.status]}>
            {vocStatusLabels[v.status]}
          </Badge>
        </AnchorLink>
      ))}
      <Button
        size={phone ? 'md' : 'compact-sm'}
        mih={phone ? 44 : undefined}
        variant="subtle"
        onClick={() => {
          key.current = crypto.randomUUID();
          setOpen(true);
        }}
      >
        VOCを登録
      </Button>
      <Suspense fallback={null}>
        {open && groups.data && (
          <VocFormModal
            opened
            voc={null}
            preset={{ institution, communicationIds: [c.id] }}
            groups={groups.data}
            onClose={() => setOpen(false)}
            onSubmit={save}
          />
        )}
      </Suspense>
    </Group>
  );
}
