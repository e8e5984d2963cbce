import type { APIGatewayProxyEvent } from 'aws-lambda';
import { currentVersion } from '../operation/paths';

/**
 * Builds the absolute links the API writes (`Location`, tag `url`, `moreInfo`, `Link`): always
 * `{base_url}/v1/…`, whichever prefix the request came in on, so that a representation is byte
 * for byte the same under `/`, `/v1` and `/api/v1`.
 */
export interface Links {
  readonly baseUrl: string;
  to(path: string): string;
}

const header = (event: APIGatewayProxyEvent, name: string) =>
  event.headers?.[name] ?? event.headers?.[name.toLowerCase()];

/**
 * `{base_url}` is the scheme, host and stage the request came in on: API Gateway's domain name,
 * never the raw `Host` header. The stage is part of the path only on API Gateway's own domain;
 * behind a custom domain the deployment sets `BASE_URL`.
 */
const baseUrlOf = (event: APIGatewayProxyEvent, configured: string | undefined): string => {
  if (configured) return configured;
  const { domainName, stage } = event.requestContext;
  const host = domainName ?? 'localhost';
  const forwarded = header(event, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'http' ? 'http' : 'https';
  const stagePath = host.endsWith('.amazonaws.com') && stage ? `/${stage}` : '';
  return `${scheme}://${host}${stagePath}`;
};

export const linksAt = (baseUrl: string): Links => ({ baseUrl, to: (path) => `${baseUrl}/${currentVersion}${path}` });

/** The links of the last request: a function instance serves one `{base_url}`, and what is cached on its links lasts. */
let lastLinks: Links | undefined;

export const linksFor = (event: APIGatewayProxyEvent, configured: string | undefined): Links => {
  const baseUrl = baseUrlOf(event, configured);
  if (lastLinks?.baseUrl !== baseUrl) lastLinks = linksAt(baseUrl);
  return lastLinks;
};
