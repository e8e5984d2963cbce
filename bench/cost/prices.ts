import { memorySize } from '../../infra/bundling';

/**
 * The prices of the cost model, the one place they are written: AWS's list prices for us-east-1
 * as published after DynamoDB's on-demand price cut of 1 November 2024 (not checked online when
 * they were written here; other regions differ).
 */
export const PRICES = {
  region: 'us-east-1',
  asOf: '1 November 2024',
  /** Dollars per million requests (the first 333 million a month). */
  apiGatewayRest: 3.5,
  /** Dollars per million invocations. */
  lambdaRequests: 0.2,
  /** Dollars per GB-second on arm64 (the first 7.5 billion GB-seconds a month). */
  lambdaArmGbSecond: 0.0000133334,
  /** Dollars per million read and write request units, on demand. */
  dynamoDbRead: 0.125,
  dynamoDbWrite: 0.625,
  /** Dollars per million custom events put (each 64 KB chunk of one counts as one). */
  eventBridgeEvents: 1.0,
} as const;

/** Memory of every function, as the stack sets it. */
export const MEMORY_MB = memorySize;

/** Dollars per million invocations of a function that runs `ms` (billed in whole milliseconds), its request included. */
export const lambdaPerMillion = (ms: number) =>
  PRICES.lambdaRequests + Math.ceil(ms) * (MEMORY_MB / 1024) * (PRICES.lambdaArmGbSecond / 1000) * 1e6;

/** Dollars per million of a thing that consumes these request units. */
export const dynamoDbPerMillion = (readUnits: number, writeUnits: number) =>
  readUnits * PRICES.dynamoDbRead + writeUnits * PRICES.dynamoDbWrite;
