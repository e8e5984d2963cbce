import type { APIGatewayProxyEvent } from 'aws-lambda';
import { currentVersion, versionPrefixOf } from '../routes';

/** Builds the absolute links the API writes (`Location`, tag `url`, `moreInfo`, `Link`). */
export interface Links {
  readonly baseUrl: string;
  /** `/v1` or `/api/v1`: the version segment of the request (`/v1` when it had none). */
  readonly versionPrefix: string;
  to(path: string): string;
}

const header = (event: APIGatewayProxyEvent, name: string) => event.headers?.[name] ?? event.headers?.[name.toLowerCase()];

/**
 * `{base_url}` is the scheme, host and stage the request came in on: API Gateway's domain name,
 * never the raw `Host` header (CONTRACT §1). The stage is part of the path only on API Gateway's
 * own domain; behind a custom domain the deployment sets `BASE_URL`.
 */
export const baseUrlOf = (event: APIGatewayProxyEvent, configured: string | undefined): string => {
  if (configured) return configured;
  const { domainName, stage } = event.requestContext;
  const host = domainName ?? 'localhost';
  const scheme = header(event, 'x-forwarded-proto')?.split(',')[0]?.trim() || 'https';
  const stagePath = host.endsWith('.amazonaws.com') && stage ? `/${stage}` : '';
  return `${scheme}://${host}${stagePath}`;
};

export const linksFor = (event: APIGatewayProxyEvent, configured: string | undefined): Links => {
  const baseUrl = baseUrlOf(event, configured);
  const versionPrefix = versionPrefixOf(event.path ?? '') || `/${currentVersion}`;
  return { baseUrl, versionPrefix, to: (path) => `${baseUrl}${versionPrefix}${path}` };
};
