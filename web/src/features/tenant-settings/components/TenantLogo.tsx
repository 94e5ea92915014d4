import { endpointRoutes } from '@renkei/contracts/client';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { fetchFile } from '../../imports/file-transfer.ts';

/** The version in a logo path (`/tenant_logo?v=…`): the image changes exactly when it does. */
function versionOf(logo: string): string {
  return new URLSearchParams(logo.split('?')[1] ?? '').get('v') ?? '';
}

/**
 * The tenant's logo. The image needs the bearer token like every API call (it is served to the tenant's
 * own users only), so it is fetched and shown from memory rather than by an `<img src>` to the API.
 */
export function TenantLogo({ logo, alt, height }: { logo: string | null; alt: string; height: number }) {
  const services = useServices();
  const version = logo ? versionOf(logo) : null;
  const { data } = useQuery({
    queryKey: ['tenant-logo', version],
    queryFn: ({ signal }) => fetchFile(services, endpointRoutes.getTenantLogo, { query: { v: version! }, signal }),
    enabled: version !== null,
    staleTime: Infinity,
    retry: false,
  });
  const src = useMemo(() => (data ? URL.createObjectURL(data) : null), [data]);
  useEffect(() => () => (src ? URL.revokeObjectURL(src) : undefined), [src]);
  if (!src) return null;
  return (
    <img
      src={src}
      alt={alt}
      height={height}
      style={{ display: 'block', maxWidth: 160, objectFit: 'contain' }}
      data-testid="tenant-logo"
    />
  );
}
