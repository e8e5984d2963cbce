import { describe, expect, it } from 'vitest';
import { isAwsEndpoint, readConfig, readStoreConfig } from '../../shared/config';

describe('deployment settings', () => {
  it('default to the testing server', () => {
    expect(readConfig({})).toEqual({
      mockEnabled: true,
      baseUrl: undefined,
      logLevel: 'INFO',
      cursorKey: 'magazine-api',
    });
  });

  it('read every variable the functions use', () => {
    const env = {
      TABLE_NAME: 't',
      MOCK_ENABLED: 'false',
      BASE_URL: 'https://api.example.com/',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      AWS_REGION: 'eu-west-1',
      LOG_LEVEL: 'debug',
    };
    expect(readConfig({ ...env, CURSOR_KEY: 'k' })).toEqual({
      mockEnabled: false,
      baseUrl: 'https://api.example.com',
      logLevel: 'DEBUG',
      cursorKey: 'k',
    });
    expect(readStoreConfig(env)).toEqual({
      tableName: 't',
      dynamoDbEndpoint: 'http://127.0.0.1:8000',
      region: 'eu-west-1',
    });
  });

  it('give a deployed function no default table: one that needs it fails at start', () => {
    expect(() => readStoreConfig({ AWS_LAMBDA_FUNCTION_NAME: 'get-magazine' })).toThrow(/TABLE_NAME/);
    expect(readStoreConfig({ AWS_LAMBDA_FUNCTION_NAME: 'get-magazine', TABLE_NAME: 'prod-table' })).toEqual({
      tableName: 'prod-table',
      dynamoDbEndpoint: undefined,
      region: 'us-east-1',
    });
  });

  it('refuse, outside Lambda, a missing DynamoDB endpoint or an AWS one, rather than reach AWS', () => {
    expect(() => readStoreConfig({ AWS_ACCESS_KEY_ID: 'AKIAREAL', AWS_SECRET_ACCESS_KEY: 'secret' })).toThrow(
      /DYNAMODB_ENDPOINT is not set.*never falls back to AWS/,
    );
    expect(() => readStoreConfig({ DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' })).toThrow(
      /is an AWS endpoint/,
    );
    expect(readStoreConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toMatchObject({ tableName: 'magazines' });
  });

  it('know AWS endpoints from local ones', () => {
    for (const endpoint of [
      'https://dynamodb.us-east-1.amazonaws.com',
      'https://dynamodb.cn-north-1.amazonaws.com.cn',
      'https://dynamodb.us-east-1.api.aws',
      'https://123456789012.ddb.us-east-1.amazonaws.com',
    ]) {
      expect(isAwsEndpoint(endpoint), endpoint).toBe(true);
    }
    for (const endpoint of [
      'http://127.0.0.1:8000',
      'http://localhost:8000',
      'http://dynamodb-local:8000',
      'not a url',
    ])
      expect(isAwsEndpoint(endpoint), endpoint).toBe(false);
  });
});
