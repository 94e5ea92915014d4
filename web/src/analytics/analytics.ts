/** One analytics module: page views with the signed-in user and tenant. The sink is pluggable. */
interface AnalyticsEvent {
  type: 'page_view';
  path: string;
  userId: string | null;
  tenantId: string | null;
  at: string;
}
export type AnalyticsSink = (event: AnalyticsEvent) => void;

export interface AnalyticsUser {
  userId: string;
  tenantId: string;
  tenantName: string;
}

const consoleSink: AnalyticsSink = (event) =>
  console.info('[analytics]', event.type, event.path, event.userId, event.tenantId);

/** Sends each event as a beacon to a collector (configured by VITE_ANALYTICS_ENDPOINT). */
const beaconSink =
  (endpoint: string): AnalyticsSink =>
  (event) => {
    const body = JSON.stringify(event);
    if (!navigator.sendBeacon?.(endpoint, new Blob([body], { type: 'application/json' }))) {
      void fetch(endpoint, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        keepalive: true,
      }).catch(() => {});
    }
  };

let sink: AnalyticsSink = consoleSink;
let user: AnalyticsUser | null = null;

export const analytics = {
  configure(endpoint: string | null) {
    sink = endpoint ? beaconSink(endpoint) : consoleSink;
  },
  setSink(next: AnalyticsSink) {
    sink = next;
  },
  identify(next: AnalyticsUser) {
    user = next;
  },
  clear() {
    user = null;
  },
  user: () => user,
  pageView(path: string) {
    sink({
      type: 'page_view',
      path,
      userId: user?.userId ?? null,
      tenantId: user?.tenantId ?? null,
      at: new Date().toISOString(),
    });
  },
};
