import { describe, expect, it } from 'vitest';
import { isLocalEndpoint, readConfig, readMagazineTagsForm, readStoreConfig } from '../../shared/config';

describe('deployment settings', () => {
  it('default to the testing server', () => {
    expect(readConfig({})).toEqual({
      mockEnabled: true,
      baseUrl: undefined,
      logLevel: 'INFO',
      cursorKey: undefined,
      cursorKeySecretArn: undefined,
      stage: 'local',
      metricsEnabled: false,
    });
    expect(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'get-magazine' }).metricsEnabled).toBe(true);
    expect(readConfig({ AWS_LAMBDA_FUNCTION_NAME: 'get-magazine', METRICS: 'off' }).metricsEnabled).toBe(false);
  });

  it('store tags as one string a tag unless told `map`, and refuse any other form', () => {
    expect(readMagazineTagsForm({})).toBe('string');
    expect(readMagazineTagsForm({ MAGAZINE_TAGS_FORM: 'map' })).toBe('map');
    expect(() => readMagazineTagsForm({ MAGAZINE_TAGS_FORM: 'maps' })).toThrow(/MAGAZINE_TAGS_FORM/);
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
    const secret = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:CursorKey-AbCdEf';
    expect(
      readConfig({ ...env, CURSOR_KEY: 'k', CURSOR_KEY_SECRET_ARN: secret, STAGE: 'prod', METRICS: 'on' }),
    ).toEqual({
      mockEnabled: false,
      baseUrl: 'https://api.example.com',
      logLevel: 'DEBUG',
      cursorKey: 'k',
      cursorKeySecretArn: secret,
      stage: 'prod',
      metricsEnabled: true,
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
      /is not a local DynamoDB/,
    );
    expect(readStoreConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toMatchObject({ tableName: 'magazines' });
  });

  it('accept as local only this machine or its private network, whatever spelling AWS is given', () => {
    for (const endpoint of [
      'https://dynamodb.us-east-1.amazonaws.com',
      'https://dynamodb.cn-north-1.amazonaws.com.cn',
      'https://dynamodb.us-east-1.api.aws',
      'https://123456789012.ddb.us-east-1.amazonaws.com',
      'https://DYNAMODB.US-EAST-1.AMAZONAWS.COM.',
      'http://52.94.0.1',
      'http://8.8.8.8:8000',
      'http://[2600:1f18::1]:8000',
      'http://localhost.example.com:8000',
      'ftp://127.0.0.1:8000',
      'not a url',
    ])
      expect(isLocalEndpoint(endpoint), endpoint).toBe(false);
    for (const endpoint of [
      'http://127.0.0.1:8000',
      'http://localhost:8000',
      'http://LOCALHOST.:8000',
      'http://ddb.localhost:8000',
      'http://dynamodb-local:8000',
      'http://10.0.0.5:8000',
      'http://172.20.0.2:8000',
      'http://192.168.1.9:8000',
      'http://[::1]:8000',
    ])
      expect(isLocalEndpoint(endpoint), endpoint).toBe(true);
  });
});
