/**
 * A fault-injecting HTTP proxy in front of DynamoDB Local: it makes the faults real DynamoDB makes
 * and DynamoDB Local never does (throttling, 500s, 503s, lost replies, unprocessed batch items,
 * transaction conflicts), and records every call with the capacity it consumed. What it emulates,
 * and how, is in fault-answers.ts; the types of its rules and calls in fault-types.ts.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import {
  type Answer,
  accessOf,
  asObject,
  asString,
  blockedBy,
  CONFLICT_REASON,
  cancellationAnswer,
  capacityOf,
  conflictAnswer,
  errorAnswer,
  type InFlight,
  internalAnswer,
  itemIds,
  jsonAnswer,
  mergeUnprocessed,
  NO_REASON,
  parseJson,
  sharedIndices,
  splitBatch,
  TRANSACTIONS,
  throttleAnswer,
  unavailableAnswer,
  unprocessedField,
  withCapacity,
  without,
} from './fault-answers';
import {
  type ActiveRule,
  conflictSettings,
  delay,
  forwardedHeaders,
  keyAttributesResolver,
  type MutableCall,
  newCall,
  readBody,
  ruleMatches,
  zeroInjected,
} from './fault-http';
import type { Fault, FaultProxy, FaultProxyOptions, JsonObject, ProxiedCall } from './fault-types';

export type { Fault, FaultKind, FaultProxy, JsonObject, JsonValue, RecordedCall } from './fault-types';
export { capacityByOperation, countByOperation, sumCapacity } from './recorded-calls';

/**
 * Starts the proxy on 127.0.0.1 (a free port) in front of `upstreamEndpoint`, such as DynamoDB
 * Local's `http://127.0.0.1:8000`. Faults are added and removed between requests with `inject`.
 */
export const startFaultProxy = async (
  upstreamEndpoint: string,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> => {
  const upstream = new URL(upstreamEndpoint);
  const random = options.random ?? Math.random;
  const keyAttributesFor = keyAttributesResolver(options.keyAttributes);
  // Our own agent, so that close() can end its keep-alive sockets to DynamoDB Local.
  const agent = new Agent({ keepAlive: true });

  let conflicts = conflictSettings(options.conflicts);
  let rules: ActiveRule[] = [];
  let recorded: MutableCall[] = [];
  let injected = zeroInjected();
  let conflictCounts: Record<string, number> = {};
  let nextIndex = 0;
  const inFlight = new Set<InFlight>();
  /** Answers a `timeout` fault holds back. */
  const held = new Set<ServerResponse>();

  const pickFault = (call: ProxiedCall): Fault | undefined => {
    let chosen: Fault | undefined;
    // Every matching rule counts the call, so that `after` means the same whatever the other rules do.
    for (const active of rules) {
      if (!ruleMatches(active, call)) continue;
      active.seen += 1;
      const { after = 0, times = Number.POSITIVE_INFINITY, probability = 1 } = active.rule;
      if (chosen || active.seen <= after || active.fired >= times || random() >= probability) continue;
      active.fired += 1;
      chosen = active.fault;
    }
    if (chosen) injected[chosen.kind] += 1;
    return chosen;
  };

  const forward = (incoming: IncomingMessage, body: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: forwardedHeaders(incoming.headers, body),
          agent,
        },
        (answer) => {
          readBody(answer).then(
            (bytes) =>
              resolve({
                status: answer.statusCode ?? 502,
                body: bytes.toString('utf8'),
                requestId: String(answer.headers['x-amzn-requestid'] ?? randomUUID()),
              }),
            reject,
          );
        },
      );
      outgoing.once('error', reject);
      outgoing.end(body);
    });

  /** DynamoDB Local's answer, with the capacity recorded and, if the client did not ask for it, removed. */
  const askUpstream = async (incoming: IncomingMessage, call: MutableCall, request: JsonObject): Promise<Answer> => {
    const { request: sent, added } = withCapacity(call.operation, request);
    call.forwarded = true;
    const answer = await forward(incoming, JSON.stringify(sent));
    const parsed = asObject(parseJson(answer.body));
    if (!parsed) return answer;
    const { read, write } = capacityOf(call.operation, parsed);
    call.readCapacityUnits += read;
    call.writeCapacityUnits += write;
    if (!added || !('ConsumedCapacity' in parsed)) return answer;
    return { ...answer, body: JSON.stringify(without(parsed, 'ConsumedCapacity')) };
  };

  /** Registers the call's items, or says why DynamoDB would refuse it now. */
  const admit = (call: ProxiedCall, request: JsonObject): { entry?: InFlight; refusal?: Answer } => {
    const access = accessOf(call.operation);
    if (!conflicts || !access) return {};
    const ids = itemIds(call.operation, request, keyAttributesFor);
    const token = access === 'transactWrite' ? asString(request.ClientRequestToken) : undefined;
    const active = [...inFlight];
    if (token && active.some((other) => other.token === token))
      return {
        refusal: errorAnswer(
          400,
          'TransactionInProgressException',
          'The transaction with the given request token is already in progress.',
        ),
      };
    const blockers = blockedBy(call.operation, access);
    const shared = sharedIndices(
      ids,
      active.filter((other) => blockers.includes(other.access)),
    );
    if (shared.length > 0) return { refusal: conflictAnswer(call.operation, ids, shared) };
    if (access !== 'transactGet') doomReaders(ids, active);
    const entry: InFlight = { access, ids, token, doomed: new Set() };
    inFlight.add(entry);
    return { entry };
  };

  /** A write landing on an item an in-flight TransactGetItems reads makes DynamoDB cancel that read. */
  const doomReaders = (ids: readonly (string | undefined)[], active: readonly InFlight[]) => {
    const written = new Set(ids.filter((id): id is string => id !== undefined));
    for (const reader of active)
      if (reader.access === 'transactGet')
        reader.ids.forEach((id, i) => {
          if (id !== undefined && written.has(id)) reader.doomed.add(i);
        });
  };

  const countConflict = (call: MutableCall) => {
    // An injected fault stays the headline (a lost reply of a cancelled transaction is still a lost reply).
    if (call.outcome === 'passed') call.outcome = 'conflict';
    conflictCounts[call.operation] = (conflictCounts[call.operation] ?? 0) + 1;
  };

  /** What DynamoDB would answer: conflict emulation around DynamoDB Local. */
  const dynamoDb = async (incoming: IncomingMessage, call: MutableCall, request: JsonObject): Promise<Answer> => {
    const { entry, refusal } = admit(call, request);
    if (refusal) {
      countConflict(call);
      return refusal;
    }
    try {
      const answer = await askUpstream(incoming, call, request);
      if (entry && TRANSACTIONS.has(call.operation) && conflicts?.holdMs) await delay(conflicts.holdMs);
      if (!entry || entry.doomed.size === 0 || answer.status !== 200) return answer;
      countConflict(call);
      return cancellationAnswer(entry.ids.map((_, i) => (entry.doomed.has(i) ? CONFLICT_REASON : NO_REASON)));
    } finally {
      if (entry) inFlight.delete(entry);
    }
  };

  const unprocessed = async (
    incoming: IncomingMessage,
    call: MutableCall,
    keep: ((count: number) => number) | undefined,
  ): Promise<Answer> => {
    const field = unprocessedField(call.operation);
    const { forwarded, withheld } = splitBatch(call.operation, call.request, keep);
    if (!forwarded)
      return jsonAnswer(
        200,
        call.operation === 'BatchGetItem' ? { Responses: {}, [field]: withheld } : { [field]: withheld },
      );
    const answer = await dynamoDb(incoming, call, forwarded);
    const parsed = asObject(parseJson(answer.body));
    if (answer.status !== 200 || !parsed) return answer;
    const merged = mergeUnprocessed(call.operation, asObject(parsed[field]) ?? {}, withheld);
    return { ...answer, body: JSON.stringify({ ...parsed, [field]: merged }) };
  };

  const reply = (res: ServerResponse, call: MutableCall, answer: Answer) => {
    const body = Buffer.from(answer.body, 'utf8');
    const parsed = parseJson(answer.body);
    call.status = answer.status;
    call.response = parsed;
    call.responseBytes = body.length;
    const type = asString(asObject(parsed)?.__type);
    if (type) call.errorType = type.slice(type.indexOf('#') + 1);
    if (res.destroyed) return;
    res.writeHead(answer.status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': body.length,
      'x-amzn-requestid': answer.requestId,
      // DynamoDB sends a checksum of every body; recomputed, as the body may have been rewritten.
      'x-amz-crc32': String(crc32(body)),
    });
    res.end(body);
  };

  const hold = (res: ServerResponse) => {
    held.add(res);
    res.once('close', () => held.delete(res));
  };

  const record = (incoming: IncomingMessage, request: JsonObject): MutableCall => {
    const call = newCall(incoming, request, nextIndex++);
    recorded.push(call);
    return call;
  };

  const handle = async (incoming: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = (await readBody(incoming)).toString('utf8');
    const request = asObject(parseJson(body));
    const call = record(incoming, request ?? {});
    if (!request) {
      // Not DynamoDB's JSON: nothing to understand, only to pass on.
      call.forwarded = true;
      return reply(res, call, await forward(incoming, body));
    }
    const fault = pickFault(call);
    if (fault) call.outcome = fault.kind;
    switch (fault?.kind) {
      case 'throttle':
        return reply(res, call, throttleAnswer(call, fault.error));
      case 'internal':
        return reply(res, call, internalAnswer());
      case 'unavailable':
        return reply(res, call, unavailableAnswer());
      case 'timeout':
        return hold(res);
      case 'lostReply':
        await dynamoDb(incoming, call, call.request);
        if (fault.reply === 'drop') res.destroy();
        else reply(res, call, internalAnswer());
        return;
      case 'unprocessed':
        return reply(res, call, await unprocessed(incoming, call, fault.keep));
      case 'conflict': {
        const ids = itemIds(call.operation, call.request, keyAttributesFor);
        return reply(
          res,
          call,
          conflictAnswer(
            call.operation,
            ids,
            ids.map((_, index) => index),
          ),
        );
      }
      default:
        return reply(res, call, await dynamoDb(incoming, call, call.request));
    }
  };

  const server = createServer((incoming, res) => {
    // DynamoDB Local gone (or the proxy closing): the client sees a dropped connection.
    handle(incoming, res).catch(() => res.destroy());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((closed) => {
      server.close(() => closed());
      for (const res of held) res.destroy();
      server.closeAllConnections();
      agent.destroy();
    });
    return closing;
  };

  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => [...recorded],
    takeCalls: () => {
      const taken = recorded;
      recorded = [];
      return taken;
    },
    resetCalls: () => {
      recorded = [];
    },
    inject: (rule) => {
      const fault: Fault = typeof rule.fault === 'string' ? { kind: rule.fault } : rule.fault;
      const active: ActiveRule = { rule, fault, seen: 0, fired: 0 };
      rules.push(active);
      return {
        get seen() {
          return active.seen;
        },
        get fired() {
          return active.fired;
        },
        remove: () => {
          rules = rules.filter((other) => other !== active);
        },
      };
    },
    clearFaults: () => {
      rules = [];
    },
    counters: () => ({ injected: { ...injected }, conflicts: { ...conflictCounts } }),
    resetCounters: () => {
      injected = zeroInjected();
      conflictCounts = {};
    },
    setConflicts: (value) => {
      conflicts = conflictSettings(value);
    },
    close,
  };
};
