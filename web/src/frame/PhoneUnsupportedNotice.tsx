import { Alert } from '@mantine/core';
import { phoneUnsupportedMessage } from './page-meta.ts';

export function PhoneUnsupportedNotice() {
  return (
    <Alert color="gray" m="md" data-testid="phone-unsupported">
      {phoneUnsupportedMessage}
    </Alert>
  );
}
