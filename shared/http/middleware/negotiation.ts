import { config } from '../../config';
import { linksFor } from '../links';
import { jsonFor, negotiate } from '../negotiation';
import { splitLabel } from '../request-path';
import type { ApiMiddleware } from './state';

/**
 * Chooses the response format first, so that every later error is rendered in it: the path
 * label decides, else `format=`, else `Accept`, else JSON. Documents (`negotiates: false`) have
 * one fixed format; their errors are JSON. Also fixes the request's `{base_url}` for links.
 */
export const negotiation = (negotiates: boolean): ApiMiddleware => ({
  before: (request) => {
    const { event } = request;
    const accept = event.headers?.accept;
    request.context.api = { links: linksFor(event, config().baseUrl), negotiated: jsonFor(accept), mock: false };
    if (!negotiates) return;
    request.context.api.negotiated = negotiate({
      label: splitLabel(event).label,
      formatParameter: event.queryStringParameters?.format ?? undefined,
      accept,
    });
  },
});
