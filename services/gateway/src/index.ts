export { buildGatewayApp, type GatewayOptions } from './gateway.app.ts';
export { buildRouteTable, type RouteTable, type RouteMatch } from './route-table.ts';
export { ensureLocalCertificate, type LocalCertificate, type LocalCertificateOptions } from './tls.ts';
export { followIpAllowLists, tenantOfBearer, type IpAllowListSource } from './ip-allow-lists.ts';
