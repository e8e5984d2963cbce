/**
 * EventBridge's PutEvents, sent by hand: one signed POST, which is all the producer needs of the
 * service. (The SDK's EventBridge client is not among the project's dependencies; this keeps the
 * function's bundle small and uses the signer the DynamoDB client already brings.)
 * Credentials are Lambda's own, from the environment it sets; `EVENTBRIDGE_ENDPOINT` names a local
 * stand-in (`npm start` serves one).
 */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

export interface BusEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly Time?: Date;
}

/**
 * The entries of one call that failed, by index: the service takes some and refuses others.
 * `signal` ends a call that has not answered (a hung connection would otherwise hold the shard).
 */
export type PutEvents = (
  entries: readonly BusEntry[],
  signal?: AbortSignal,
) => Promise<{ readonly failed: readonly number[] }>;

/** The SHA-256 the signer asks for, by node:crypto: a keyed one is HMAC. */
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

class Sha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
  reset() {}
}

export interface BusSettings {
  readonly busName: string;
  readonly region: string;
  readonly endpoint?: string | undefined;
}

export const busSettings = (env: NodeJS.ProcessEnv = process.env): BusSettings => {
  const busName = env.EVENT_BUS_NAME;
  if (!busName) throw new Error('EVENT_BUS_NAME is not set: the change events have no bus to go to.');
  return {
    busName,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    endpoint: env.EVENTBRIDGE_ENDPOINT || undefined,
  };
};

export const eventBus = (settings: BusSettings = busSettings(), fetchImpl: typeof fetch = fetch): PutEvents => {
  const url = new URL(settings.endpoint ?? `https://events.${settings.region}.amazonaws.com/`);
  const signer = new SignatureV4({
    service: 'events',
    region: settings.region,
    sha256: Sha256,
    credentials: async () => ({
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
      ...(process.env.AWS_SESSION_TOKEN && { sessionToken: process.env.AWS_SESSION_TOKEN }),
    }),
  });
  return async (entries, signal) => {
    const body = JSON.stringify({
      Entries: entries.map((entry) => ({
        Source: entry.Source,
        DetailType: entry.DetailType,
        Detail: entry.Detail,
        EventBusName: settings.busName,
        ...(entry.Time && { Time: entry.Time.getTime() / 1000 }),
      })),
    });
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port && { port: Number(url.port) }),
      path: url.pathname,
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSEvents.PutEvents',
      },
      body,
    });
    const response = await fetchImpl(url, { method: 'POST', headers: signed.headers, body, ...(signal && { signal }) });
    const text = await response.text();
    if (!response.ok) throw new Error(`PutEvents answered ${response.status}: ${text.slice(0, 300)}`);
    const result = JSON.parse(text) as { Entries?: { ErrorCode?: string }[] };
    return {
      failed: (result.Entries ?? []).flatMap((entry, index) => (entry.ErrorCode ? [index] : [])),
    };
  };
};
