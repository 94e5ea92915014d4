import { useMediaQuery } from '@mantine/hooks';
import type { Viewport } from './menu.ts';

export function useViewport(): Viewport {
  const phone = useMediaQuery('(max-width: 599px)', false, { getInitialValueInEffect: false });
  const desktop = useMediaQuery('(min-width: 1025px)', true, { getInitialValueInEffect: false });
  if (phone) return 'phone';
  return desktop ? 'desktop' : 'tablet';
}
