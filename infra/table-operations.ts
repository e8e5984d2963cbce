import { Operation as TableOperation } from 'aws-cdk-lib/aws-dynamodb';
import type { TableAction } from '../shared/operation/row';

/** The DynamoDB operations (as CloudWatch names them) a grant lets a function send; writes also go in transactions. */
export const tableOperationsOf = (action: TableAction): TableOperation[] => {
  switch (action) {
    case 'GetItem':
      return [TableOperation.GET_ITEM];
    case 'BatchGetItem':
      return [TableOperation.BATCH_GET_ITEM];
    case 'Query':
      return [TableOperation.QUERY];
    case 'BatchWriteItem':
      return [TableOperation.BATCH_WRITE_ITEM];
    case 'PutItem':
      return [TableOperation.PUT_ITEM, TableOperation.TRANSACT_WRITE_ITEMS];
    case 'UpdateItem':
      return [TableOperation.UPDATE_ITEM, TableOperation.TRANSACT_WRITE_ITEMS];
    case 'DeleteItem':
      return [TableOperation.DELETE_ITEM, TableOperation.TRANSACT_WRITE_ITEMS];
    case 'ConditionCheckItem':
      return [TableOperation.TRANSACT_WRITE_ITEMS];
  }
};
