import { ApiError } from '../shared/http/errors';
import { unknownLabel } from '../shared/http/negotiation';
import { currentVersion, resourceTakesLabels } from '../shared/operation/paths';
import { api } from '../shared/routes/api';
import { isOperationPath, suggestPath } from '../shared/routes/suggest-path';
import { resourceList } from '../shared/routes/table';

const resources = resourceList()
  .map((path) => `\`${path}\``)
  .join(', ');

/** API Gateway's `/{proxy+}`: every path no resource matches. */
export const handler = api('notFound', {
  run: ({ requestPath }) => {
    const unknownVersion = /^(?:\/api)?\/(v\d+)(?:\/|$)/.exec(requestPath);
    if (unknownVersion && unknownVersion[1] !== currentVersion) {
      throw new ApiError(
        '40406',
        `Version \`${unknownVersion[1]}\` of this API does not exist. The versions that exist are: v1 (paths \`/v1/...\` or \`/api/v1/...\`), and the latest version without a version segment.`,
      );
    }
    // A label on a path that takes none (the documents: `/documentation.json`) is an unknown path.
    const label = /\.([A-Za-z0-9]+)$/.exec(requestPath);
    const labelled = label ? requestPath.slice(0, label.index) : '';
    if (label && isOperationPath(labelled) && resourceTakesLabels(labelled)) throw unknownLabel(label[1] ?? '');
    const suggestion = suggestPath(requestPath);
    throw new ApiError(
      '40401',
      `No resource exists at \`${requestPath}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ` Resources are ${resources}.`}`,
    );
  },
});
