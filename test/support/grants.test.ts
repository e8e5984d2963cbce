import { describe, expect, it } from 'vitest';
import { actionsOf, GrantRecorder, grantViolations, operationOf } from './grants';

const transaction = JSON.stringify({
  TransactItems: [{ Put: {} }, { ConditionCheck: {} }, { Update: {} }, { Put: {} }],
});

describe('the grant check run over the whole suite', () => {
  it('knows the IAM actions of each request, those inside a transaction included', () => {
    expect(actionsOf('DynamoDB_20120810.GetItem', '{}')).toEqual(['GetItem']);
    expect(actionsOf('DynamoDB_20120810.TransactWriteItems', transaction)).toEqual([
      'PutItem',
      'ConditionCheckItem',
      'UpdateItem',
    ]);
    expect(actionsOf('DynamoDB_20120810.TransactGetItems', '{}')).toEqual(['GetItem']);
  });

  it('knows the operation by the user agent its client sends', () => {
    expect(operationOf({ 'x-amz-user-agent': 'aws-sdk-js/3.0 ua/2.1 magazine-api/createArticle' })).toBe(
      'createArticle',
    );
    expect(operationOf({ 'user-agent': 'aws-sdk-js/3.0 lang/js' })).toBeUndefined();
  });

  it('fails a call the row does not grant, and, over the whole suite, a grant no call uses', () => {
    const recorder = new GrantRecorder();
    const agent = { 'x-amz-user-agent': 'magazine-api/createMagazine' };
    recorder.record(agent, 'DynamoDB_20120810.TransactWriteItems', transaction);
    recorder.record({ 'user-agent': 'test harness' }, 'DynamoDB_20120810.DeleteTable', '{}');
    const rows = [
      { id: 'createMagazine', actions: ['PutItem', 'UpdateItem', 'GetItem'] as const },
      { id: 'getMagazine', actions: ['GetItem'] as const },
    ];
    expect(grantViolations(recorder.recorded, rows, false)).toEqual([
      "createMagazine: sends ConditionCheckItem, which its row's actions do not grant",
    ]);
    expect(grantViolations(recorder.recorded, rows, true)).toEqual([
      "createMagazine: sends ConditionCheckItem, which its row's actions do not grant",
      'createMagazine: is granted GetItem, which no test path sends',
      'getMagazine: is granted GetItem, which no test path sends',
    ]);
  });
});
