import { AccessLogField, AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';

/** The access log field that says which gateway response API Gateway answered with (`THROTTLED`, `QUOTA_EXCEEDED`, …). */
export const errorResponseTypeField = 'errorResponseType';

/**
 * The access log: API Gateway's standard fields, the stage and trace that tie a line to metrics and
 * traces, and why API Gateway answered as it did when no function did (its gateway response, the
 * integration's failure, the WAF's verdict), which no metric tells.
 */
export const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    ip: AccessLogField.contextIdentitySourceIp(),
    user: AccessLogField.contextIdentityUser(),
    caller: AccessLogField.contextIdentityCaller(),
    // Which client a refusal hit (the key's id, never its value): CloudWatch has no metric by key.
    apiKeyId: AccessLogField.contextIdentityApiKeyId(),
    requestTime: AccessLogField.contextRequestTime(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    status: AccessLogField.contextStatus(),
    protocol: AccessLogField.contextProtocol(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatency: AccessLogField.contextResponseLatency(),
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    stage: AccessLogField.contextStage(),
    xrayTraceId: AccessLogField.contextXrayTraceId(),
    // A 429 for a spent daily quota (`QUOTA_EXCEEDED`) is told from one for rate (`THROTTLED`) only here.
    [errorResponseTypeField]: AccessLogField.contextErrorResponseType(),
    errorMessage: AccessLogField.contextErrorMessage(),
    integrationError: '$context.integration.error',
    integrationStatus: '$context.integration.status',
    wafStatus: AccessLogField.contextWafStatus(),
    wafResponseCode: AccessLogField.contextWafResponseCode(),
  }),
);
