import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DynamoDbProxy {
  /** Where to point a DynamoDB client, such as `http://127.0.0.1:54321`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** An answer the proxy gives instead of DynamoDB's, to inject a fault DynamoDB Local never makes. */
export interface InjectedFault {
  readonly status: number;
  /** DynamoDB's error type, such as `ValidationException`. */
  readonly type: string;
}

const isFault = (value: unknown): value is InjectedFault =>
  typeof value === 'object' && value !== null && 'status' in value && 'type' in value;

/**
 * A small HTTP proxy in front of DynamoDB Local that shows each request to `record` before
 * passing it on: `target` is the raw `X-Amz-Target` header (such as `DynamoDB_20120810.GetItem`,
 * `unknown` when there is none) and `body` the request body as text. The answer is piped back,
 * unless `record` returns a fault to answer with instead.
 */
export const startDynamoDbProxy = async (
  targetEndpoint: string,
  /** What it returns is the fault to answer with, if it is one (a recorder returns nothing). */
  record: (target: string, body: string, headers: NodeJS.Dict<string | string[]>) => unknown,
): Promise<DynamoDbProxy> => {
  const upstream = new URL(targetEndpoint);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const body = Buffer.concat(chunks);
      const answer = record(String(req.headers['x-amz-target'] ?? 'unknown'), body.toString('utf8'), req.headers);
      const fault = isFault(answer) ? answer : undefined;
      if (fault) {
        res.writeHead(fault.status, { 'Content-Type': 'application/x-amz-json-1.0' });
        res.end(
          JSON.stringify({
            __type: `com.amazonaws.dynamodb.v20120810#${fault.type}`,
            message: 'Injected by the test proxy.',
          }),
        );
        return;
      }
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.once('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
};
