import { createContext, useContext, type ReactNode } from 'react';
import type { ApiClient, ApiTransport } from '../api/api-client.ts';
import type { AuthService } from '../auth/auth-service.ts';
import type { AppConfig } from './config.ts';

export interface AppServices {
  config: AppConfig;
  auth: AuthService;
  api: ApiClient & { transport: ApiTransport };
  logout: () => Promise<void>;
}

const ServicesContext = createContext<AppServices | null>(null);

export function ServicesProvider({ value, children }: { value: AppServices; children: ReactNode }) {
  return <ServicesContext.Provider value={value}>{children}</ServicesContext.Provider>;
}

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('ServicesProvider is missing');
  return services;
}
