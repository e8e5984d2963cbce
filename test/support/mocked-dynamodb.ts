/**
 * Imported first by unit tests whose DynamoDB client is replaced by aws-sdk-client-mock: the
 * handlers still read their settings when they load, and outside Lambda they need a DynamoDB
 * endpoint. This one is never reached (the mock answers), and would refuse if it were.
 */
process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
process.env.AWS_ACCESS_KEY_ID = 'unit-test';
process.env.AWS_SECRET_ACCESS_KEY = 'unit-test';
