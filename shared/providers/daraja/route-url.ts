import { DARAJA_ROUTES, type DarajaRouteName } from './schema';

/** The URL of one Daraja route of an account (path secret included): what the partner registers with Daraja. */
export function darajaRouteUrl(
  baseUrl: string,
  accountId: string,
  pathSecret: string | undefined,
  route: DarajaRouteName,
): string {
  return `${baseUrl.replace(/\/$/, '')}/v1/daraja/${accountId}${pathSecret ? `/${pathSecret}` : ''}/${DARAJA_ROUTES[route]}`;
}

export function darajaRouteUrls(
  baseUrl: string,
  accountId: string,
  pathSecret: string | undefined,
): Record<DarajaRouteName, string> {
  const urls = {} as Record<DarajaRouteName, string>;
  for (const route of Object.keys(DARAJA_ROUTES) as DarajaRouteName[]) {
    urls[route] = darajaRouteUrl(baseUrl, accountId, pathSecret, route);
  }
  return urls;
}
