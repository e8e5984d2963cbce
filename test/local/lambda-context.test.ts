import { describe, expect, it } from 'vitest';
import { memorySize } from '../../infra/bundling';
import { lambdaContext } from '../../local/lambda-context';

describe('the Lambda context', () => {
  it('is what a deployed function gets: its memory, a deadline that counts down, the request id', () => {
    const context = lambdaContext('magazine-api-local-get-magazine', 'request-7', { timeoutMs: 5_000 });
    expect(context.memoryLimitInMB).toBe(String(memorySize));
    expect(context.awsRequestId).toBe('request-7');
    expect(context.invokedFunctionArn).toMatch(
      /^arn:aws:lambda:[a-z0-9-]+:\d{12}:function:magazine-api-local-get-magazine$/,
    );
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(4_000);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(5_000);
  });
});
