import { Button, type ButtonProps } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { LogCommunicationModal } from './LogCommunicationModal.tsx';

/**
 * 「活動を記録」 for one institution, where the tenant has communications: the button and its form in place.
 * Nothing shows without the feature.
 */
export function LogCommunicationButton({
  institution,
  ...buttonProps
}: { institution: { id: string; name: string } } & ButtonProps) {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const [logging, setLogging] = useState(false);
  if (user.data?.features.includes('communications') !== true) return null;
  return (
    <>
      <Button {...buttonProps} onClick={() => setLogging(true)}>
        活動を記録
      </Button>
      <LogCommunicationModal opened={logging} onClose={() => setLogging(false)} institution={institution} />
    </>
  );
}
