import { describe, expect, it } from 'vitest';
import { readConfig, requiredTableName } from '../../shared/config';

describe('deployment settings', () => {
  it('default to the local set-up', () => {
    expect(readConfig({})).toEqual({ tableName: 'magazines', mockEnabled: true, baseUrl: undefined, dynamoDbEndpoint: undefined, region: 'us-east-1', logLevel: 'INFO' });
  });

  it('read every variable the functions use', () => {
    const settings = readConfig({
      TABLE_NAME: 't',
      MOCK_ENABLED: 'false',
      BASE_URL: 'https://api.example.com/',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      AWS_REGION: 'eu-west-1',
      LOG_LEVEL: 'debug',
    });
    expect(settings).toEqual({ tableName: 't', mockEnabled: false, baseUrl: 'https://api.example.com', dynamoDbEndpoint: 'http://127.0.0.1:8000', region: 'eu-west-1', logLevel: 'DEBUG' });
  });

  it('give a deployed function no default table: one that needs it fails at start', () => {
    const deployed = readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'get-magazine' });
    expect(deployed.tableName).toBeUndefined();
    expect(() => requiredTableName(deployed)).toThrow(/TABLE_NAME/);
    expect(requiredTableName(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'get-magazine', TABLE_NAME: 'prod-table' }))).toBe('prod-table');
  });
});
