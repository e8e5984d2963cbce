import { Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type Dashboard,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { FilterPattern, type LogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { dimensions, metricsNamespace, requestMetrics, TICKETS_READ } from '../shared/metrics';
import type { TableAction } from '../shared/operation/row';
import { errorResponseTypeField } from './access-log';
import type { ApiFunction } from './api-function';
import { buildDashboard, type DashboardProps, fiveMinutes } from './dashboard';
import type { AlarmThresholds } from './stage-settings';
import { tableOperationsOf } from './table-operations';

/**
 * The metric the access log's 429 lines for rate become (API Gateway publishes no count of its own
 * throttling). A spent daily quota is left out: one client polling past its quota is its own
 * business, and would hold the alarm for the rest of the day.
 */
export const throttledRequestsMetric = 'ThrottledRequests';

/** A function of the API and the operation it serves (the `Operation` of its metrics). */
export interface MonitoredFunction {
  readonly handler: string;
  readonly operationId: string;
  readonly actions: readonly TableAction[];
  readonly fn: ApiFunction;
  /** Run by a schedule or the table's stream: it answers no request, so it has no 500s to count. */
  readonly background?: boolean;
}

export interface MonitoringProps extends DashboardProps {
  readonly thresholds: AlarmThresholds;
  readonly alarmEmail: string | undefined;
  readonly accessLogs: LogGroup;
  readonly table: Table;
  readonly functions: readonly MonitoredFunction[];
  /** The functions the table's stream runs, besides where their failed batches go. */
  readonly stream?: { readonly handlers: readonly string[]; readonly failures: IQueue };
  /** The functions a schedule runs, and how often. */
  readonly schedules?: readonly { readonly handler: string; readonly everyMinutes: number }[];
}

const oneMinute = Duration.minutes(1);

/**
 * The alarms of one stage, the topic they notify, and a dashboard of the same figures: the API's
 * 5xx rate, p99 latency and 429s (API Gateway), each function's failures and throttles (Lambda,
 * and the functions' own metrics), the table's throttled requests (DynamoDB), beside the
 * functions' per-operation, business and store metrics.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** By handler: its errors alarm, which also rolls back a canary of its function. */
  readonly functionErrorAlarms = new Map<string, Alarm>();
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { stage, thresholds, api, table } = props;
    const name = (suffix: string) => `magazine-api-${stage}-${suffix}`;
    const emf = (metricName: string, extra: Record<string, string> = {}, statistic = 'Sum', period = fiveMinutes) =>
      new Metric({
        namespace: metricsNamespace,
        metricName,
        dimensionsMap: { [dimensions.stage]: stage, ...extra },
        statistic,
        period,
      });

    this.topic = new Topic(this, 'Alarms', { displayName: `Magazine API (${stage}) alarms`, enforceSSL: true });
    // The topic's policy (the TLS rule) replaces SNS's default one, whose account-wide allow is what lets
    // CloudWatch publish: without this statement every alarm action fails ("not authorized to perform: SNS:Publish").
    const { account, region, partition } = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowStageAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:${name('*')}` },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const alarm = (
      alarmId: string,
      alarmName: string,
      metric: IMetric,
      threshold: number,
      description: string,
      evaluation: { periods: number; datapoints: number } = { periods: 1, datapoints: 1 },
      below = false,
    ) => {
      const created = new Alarm(this, alarmId, {
        alarmName: name(alarmName),
        alarmDescription: description,
        metric,
        threshold,
        // An alarm on too little (a schedule that stopped) sees no data as the worst case: nothing ran.
        comparisonOperator: below
          ? ComparisonOperator.LESS_THAN_THRESHOLD
          : ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: evaluation.periods,
        datapointsToAlarm: evaluation.datapoints,
        treatMissingData: below ? TreatMissingData.BREACHING : TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };

    const api5xxRate = api.metricServerError({ statistic: 'Average', period: fiveMinutes, label: '5xx rate' });
    const apiP99 = api.metricLatency({ statistic: 'p99', period: fiveMinutes, label: 'p99 latency' });
    props.accessLogs.addMetricFilter('Throttled', {
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.status', '=', '429'),
        FilterPattern.stringValue(`$.${errorResponseTypeField}`, '!=', 'QUOTA_EXCEEDED'),
      ),
      metricNamespace: metricsNamespace,
      metricName: throttledRequestsMetric,
      metricValue: '1',
      dimensions: { [dimensions.stage]: '$.stage' },
    });
    const api429 = emf(throttledRequestsMetric);
    const tableOperations = [...new Set(props.functions.flatMap((f) => f.actions.flatMap(tableOperationsOf)))].sort();
    // DynamoDB publishes a throttled operation's metric only when it throttles: each term is filled
    // with 0, or one operation's throttles would be lost whenever another had none.
    const throttlesOf = Object.fromEntries(
      tableOperations.map((operation) => [
        operation.toLowerCase(),
        table.metricThrottledRequestsForOperation(operation, { period: fiveMinutes, statistic: 'Sum' }),
      ]),
    );
    const tableThrottles = new MathExpression({
      expression: Object.keys(throttlesOf)
        .map((id) => `FILL(${id}, 0)`)
        .join(' + '),
      usingMetrics: throttlesOf,
      period: fiveMinutes,
      label: 'Throttled requests',
    });

    // Two bad periods of three: one slow or failing burst on a quiet API is not yet an incident.
    const twoOfThree = { periods: 3, datapoints: 2 };
    alarm(
      'Api5xxRate',
      'api-5xx-rate',
      api5xxRate,
      thresholds.alarmApi5xxRate,
      `Share of requests answered 5xx, over 5 minutes, at or above ${thresholds.alarmApi5xxRate}.`,
      twoOfThree,
    );
    alarm(
      'ApiP99Latency',
      'api-p99-latency',
      apiP99,
      thresholds.alarmApiP99LatencyMs,
      `p99 latency at or above ${thresholds.alarmApiP99LatencyMs} ms, over 5 minutes.`,
      twoOfThree,
    );
    alarm(
      'Api429',
      'api-429',
      api429,
      thresholds.alarmApi429Count,
      `At least ${thresholds.alarmApi429Count} requests refused with 429 for rate (the stage's or a usage plan's throttling) in 5 minutes; a spent daily quota (QUOTA_EXCEEDED) is not counted.`,
    );
    alarm(
      'TableThrottles',
      'table-throttles',
      tableThrottles,
      thresholds.alarmTableThrottles,
      `At least ${thresholds.alarmTableThrottles} DynamoDB requests throttled in 5 minutes.`,
    );
    // Whatever keeps the folder from folding (stopped, failing, behind, a list it cannot take), readers pay for it first.
    alarm(
      'TicketsRead',
      'tickets-read',
      emf(TICKETS_READ, {}, 'Maximum', oneMinute),
      thresholds.alarmTicketsRead,
      `One list read added up at least ${thresholds.alarmTicketsRead} tickets (count work not folded yet), in 3 minutes of 5: more than a working folder leaves (docs/data-model.md, "The bound"), so it is behind, stopped or failing, and pages read more; counts stay exact.`,
      { periods: 5, datapoints: 3 },
    );

    if (props.stream) {
      // A batch the stream gave up on holds tickets no fold took: readers still count them, but they stay until replayed.
      alarm(
        'StreamFailures',
        'stream-failures',
        props.stream.failures.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        1,
        "A batch of the table's stream failed every retry and waits in the StreamFailures queue: a folder's batch leaves its lists' tickets until it is replayed, a publisher's batch leaves consumers without its change events until it is replayed.",
      );
      // The depth stays at 1 or more while an old failure waits, so it says nothing of new ones; the
      // mapping sends its failures itself (not an SQS redrive), so each shows in NumberOfMessagesSent.
      alarm(
        'StreamFailuresNew',
        'stream-failures-new',
        props.stream.failures.metricNumberOfMessagesSent({ period: fiveMinutes, statistic: 'Sum' }),
        1,
        "A new batch of the table's stream failed every retry and was sent to the StreamFailures queue in the last 5 minutes: each new failure notifies, even while older ones wait there (stream-failures).",
      );
      for (const { handler, fn } of props.functions.filter((f) => props.stream?.handlers.includes(f.handler)))
        alarm(
          `${fn.node.id}IteratorAge`,
          `${handler}-iterator-age`,
          fn.function.metric('IteratorAge', { period: oneMinute, statistic: 'Maximum' }),
          60_000,
          `functions/${handler}.ts is more than a minute behind the table's stream: tickets pile up and list pages read more.`,
          { periods: 3, datapoints: 2 },
        );
    }

    for (const { handler, operationId, fn, background } of props.functions) {
      const target = fn.live ?? fn.function;
      const invocationErrors = target.metricErrors({ period: oneMinute, statistic: 'Sum' });
      // A defect inside a function is answered 500 in form, so Lambda counts no error: add the 500s.
      // A background function answers no one: its failures are thrown, and Lambda counts them.
      const failures = background
        ? invocationErrors.with({ label: `${handler} failures` })
        : new MathExpression({
            expression: 'FILL(invocationErrors, 0) + FILL(defects, 0)',
            usingMetrics: {
              invocationErrors,
              defects: emf(
                requestMetrics.serverErrors,
                { [dimensions.operation]: operationId, [dimensions.errorCode]: '50001' },
                'Sum',
                oneMinute,
              ),
            },
            period: oneMinute,
            label: `${handler} failures`,
          });
      this.functionErrorAlarms.set(
        handler,
        alarm(
          `${fn.node.id}Errors`,
          `${handler}-errors`,
          failures,
          thresholds.alarmFunctionErrors,
          `functions/${handler}.ts failed at least ${thresholds.alarmFunctionErrors} times in a minute (${background ? 'Lambda errors: a crash, a timeout or a thrown error' : 'Lambda errors and 500 answers'}).`,
        ),
      );
      alarm(
        `${fn.node.id}Throttles`,
        `${handler}-throttles`,
        fn.function.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }),
        thresholds.alarmFunctionThrottles,
        `functions/${handler}.ts throttled at least ${thresholds.alarmFunctionThrottles} times in 5 minutes.`,
      );
    }

    // A schedule that stopped (disabled, deleted, its permission gone) fails nothing: only the missing runs tell.
    for (const { handler, everyMinutes } of props.schedules ?? []) {
      const fn = props.functions.find((f) => f.handler === handler)?.fn;
      if (!fn) continue;
      const period = Duration.minutes(everyMinutes + 5);
      alarm(
        `${fn.node.id}Stopped`,
        `${handler}-stopped`,
        fn.function.metricInvocations({ period, statistic: 'Sum' }),
        1,
        `functions/${handler}.ts, run every ${everyMinutes} minutes, did not run in ${period.toMinutes()} minutes: its schedule is disabled or gone, or Lambda cannot invoke it.`,
        { periods: 1, datapoints: 1 },
        true,
      );
    }

    this.dashboard = buildDashboard(this, name('dashboard'), props, {
      alarms: this.alarms,
      topic: this.topic,
      api5xxRate,
      apiP99,
      api429,
      tableThrottles,
      emf,
    });
  }
}
