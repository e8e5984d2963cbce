import { config } from '../../config';
import { linksFor } from '../links';
import { jsonFor, negotiate } from '../negotiation';
import { splitLabel } from '../request-path';
import { wellFormedOrAbsent } from '../text';
import type { ApiMiddleware } from './state';

/**
 * Chooses the response format first, so that every later error is rendered in it: the path
 * label decides, else `format=`, else `Accept`, else JSON. Documents (`negotiates: false`) have
 * one fixed format; their errors are JSON. The 404 and 405 (`refuses: false`) answer in the
 * format asked for when there is one, and in JSON when there is none: a path or method that does
 * not exist is what the client must learn, not that its `Accept` fits no format. Also fixes the
 * request's `{base_url}` for links.
 */
export const negotiation = (negotiates: boolean, refuses = true, labelled = true): ApiMiddleware => ({
  before: (request) => {
    const { event } = request;
    // Text that is not Unicode names no format: it is passed over here, and refused next (middleware/text.ts).
    const accept = wellFormedOrAbsent(event.headers?.accept);
    request.context.api = { links: linksFor(event, config().baseUrl), negotiated: jsonFor(accept), mock: false };
    if (!negotiates) return;
    try {
      request.context.api.negotiated = negotiate({
        label: splitLabel(event, labelled).label,
        formatParameter: wellFormedOrAbsent(event.queryStringParameters?.format),
        accept,
      });
    } catch (error) {
      if (refuses) throw error;
    }
  },
});
