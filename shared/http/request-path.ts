import type { APIGatewayProxyEvent } from 'aws-lambda';
import { resourceTakesLabels } from '../operation/paths';
import { isFormat } from './negotiation';

/** Every path parameter name the route table uses; those not in the matched path are `''`. */
export type PathParameters = Readonly<Record<'id' | 'articleId' | 'tagId' | 'errorCode', string>>;

const pathParameters = (event: APIGatewayProxyEvent): Record<keyof PathParameters, string> => {
  const given = event.pathParameters ?? {};
  return {
    id: given.id ?? '',
    articleId: given.articleId ?? '',
    tagId: given.tagId ?? '',
    errorCode: given.errorCode ?? '',
  };
};

const FORMAT_LABEL = /\.([A-Za-z0-9]+)$/;

/**
 * The path parameters and the format label. `.json`/`.xml` ends either a literal resource
 * (`/magazines.json`) or the last parameter (API Gateway hands `/magazines/1234.json` over as
 * `id = "1234.json"`). On the catch-all `/{proxy+}` a known label still chooses the format of the
 * 404. Documents are named `.html` and `.json`: those are names, not labels.
 */
export const splitLabel = (
  event: APIGatewayProxyEvent,
  /** Whether the operation takes labels (GET/HEAD, and the POSTs the row marks): `PUT /magazines/a.json` is id `a.json`. */
  labelled = true,
): { params: PathParameters; label: string | undefined } => {
  const params = pathParameters(event);
  if (!labelled || !resourceTakesLabels(event.resource)) return { params, label: undefined };
  if (event.resource.endsWith('{proxy+}')) {
    const label = FORMAT_LABEL.exec(event.path)?.[1];
    return { params, label: label !== undefined && isFormat(label) ? label : undefined };
  }
  const lastParam = /\{([A-Za-z0-9_]+)\}$/.exec(event.resource)?.[1];
  if (lastParam !== undefined && lastParam in params) {
    const name = lastParam as keyof PathParameters;
    const label = FORMAT_LABEL.exec(params[name])?.[1];
    if (label !== undefined) params[name] = params[name].slice(0, -label.length - 1);
    return { params, label };
  }
  return { params, label: FORMAT_LABEL.exec(event.resource)?.[1] };
};

/** The resource last made a template of: a function serves one or a few resources, request after request. */
let lastTemplate = { resource: '', template: '' };

/** `/api/v1/magazines/{id}.json` with `{id: "x"}` → `/magazines/x`. */
export const operationPath = (resource: string, params: PathParameters) => {
  if (lastTemplate.resource !== resource)
    lastTemplate = { resource, template: resource.replace(/^(\/api)?\/v\d+(?=\/)/, '').replace(/\.(json|xml)$/, '') };
  const { template } = lastTemplate;
  if (!template.includes('{')) return template;
  return template.replace(/\{([A-Za-z0-9_]+)\+?\}/g, (_, name: string) =>
    encodeURIComponent(params[name as keyof PathParameters] ?? ''),
  );
};
