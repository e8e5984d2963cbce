import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * The yardstick of the bundle budget: the least a function of this API could be, middy and one
 * DynamoDB GetItem through lib-dynamodb, nothing else.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>().handler(async (event) => {
  const { Item } = await client.send(
    new GetCommand({
      TableName: process.env.TABLE_NAME,
      Key: { PK: `MAG#${event.pathParameters?.id ?? ''}`, SK: 'MAG' },
    }),
  );
  return {
    statusCode: Item ? 200 : 404,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(Item ?? {}),
  };
});
