import { renderErrorPage } from '../shared/docs/error-pages';
import { isErrorCode } from '../shared/http/error-catalogue';
import { ApiError } from '../shared/http/errors';
import { document } from '../shared/http/replies';
import { api } from '../shared/routes/api';
import { row } from '../shared/routes/rows/get-error-page';

/** `{errorCode}` is the whole last segment, such as `40402.html` (API Gateway does not split it). */
export const handler = api(row, {
  run: ({ params, links }) => {
    const segment = params.errorCode ?? '';
    const code = /^(\d+)\.html$/.exec(segment)?.[1];
    if (code === undefined || !isErrorCode(code)) {
      throw new ApiError(
        '40405',
        `\`${segment}\` is not the page of an error code of this API; pages are named like \`40402.html\`. See ${links.to('/documentation/errors/')} for every code.`,
      );
    }
    return document('text/html; charset=utf-8', renderErrorPage(code, links));
  },
});
