import { Duration } from 'aws-cdk-lib';
import type { SpecRestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  type Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  dimensions,
  EVENTS_PUBLISHED,
  metricsNamespace,
  requestMetrics,
  type StageMetric,
  TICKETS_READ,
} from '../shared/metrics';
import type { ApiFunction } from './api-function';
import type { StageName } from './stage-settings';

/** What the dashboard shows of a stage: the part of the monitoring construct's props it reads. */
export interface DashboardProps {
  readonly stage: StageName;
  readonly api: SpecRestApi;
  /** `background`: run by a schedule or the stream, so it writes none of the per-request metrics. */
  readonly functions: readonly {
    readonly operationId: string;
    readonly fn: ApiFunction;
    readonly background?: boolean;
  }[];
  /** Where the batches the table's stream functions could not handle go. */
  readonly stream?: { readonly failures: IQueue };
  /** Whether a stream function puts change events on a bus (its failed batches go to the stream's failure queue). */
  readonly events?: boolean;
}

/** The period of the alarms' and the dashboard's figures, unless one needs a minute. */
export const fiveMinutes = Duration.minutes(5);

/** The figures the alarms watch, made once by the monitoring construct and shown here beside the rest. */
export interface DashboardFigures {
  readonly alarms: readonly Alarm[];
  readonly topic: Topic;
  readonly api5xxRate: IMetric;
  readonly apiP99: IMetric;
  readonly api429: Metric;
  readonly tableThrottles: IMetric;
  readonly emf: (metricName: string, extra?: Record<string, string>, statistic?: string) => Metric;
}

/** One stage's dashboard: the alarms' states, then the API's, the functions' and the store's figures. */
export const buildDashboard = (
  scope: Construct,
  dashboardName: string,
  props: DashboardProps,
  figures: DashboardFigures,
) => {
  const { api } = props;
  const { emf } = figures;
  const width = 8;
  const perOperation = (metricName: string, statistic = 'Sum') =>
    props.functions
      .filter(({ background }) => !background)
      .map(({ operationId }) =>
        emf(metricName, { [dimensions.operation]: operationId }, statistic).with({ label: operationId }),
      );
  const perFunction = (metric: (fn: ApiFunction) => IMetric) => props.functions.map(({ fn }) => metric(fn));
  const stageCounts = (names: readonly StageMetric[]) => names.map((metricName) => emf(metricName));

  const dashboard = new Dashboard(scope, 'Dashboard', { dashboardName });
  dashboard.addWidgets(
    new TextWidget({
      markdown: `# Magazine API (${props.stage})\nAlarms notify the SNS topic \`${figures.topic.topicName}\` (the \`AlarmTopicArn\` output); the functions' own metrics are in the \`${metricsNamespace}\` namespace.`,
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: [...figures.alarms], width: 24, height: 6 }));
  dashboard.addWidgets(
    new GraphWidget({
      title: 'API requests, 4xx and 5xx (API Gateway)',
      left: [api.metricCount({ period: fiveMinutes, statistic: 'Sum', label: 'Requests' })],
      right: [
        api.metricClientError({ period: fiveMinutes, statistic: 'Sum', label: '4xx' }),
        api.metricServerError({ period: fiveMinutes, statistic: 'Sum', label: '5xx' }),
        figures.api429.with({ label: '429 (throttled)' }),
      ],
      width,
    }),
    new GraphWidget({ title: 'API 5xx rate', left: [figures.api5xxRate], width }),
    new GraphWidget({
      title: 'API latency (ms)',
      left: [
        api.metricLatency({ statistic: 'p50', period: fiveMinutes, label: 'p50' }),
        figures.apiP99,
        api.metricIntegrationLatency({ statistic: 'p99', period: fiveMinutes, label: 'integration p99' }),
      ],
      width,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({ title: 'Requests by operation', left: perOperation(requestMetrics.requests), width }),
    new GraphWidget({ title: '4xx by operation', left: perOperation(requestMetrics.clientErrors), width }),
    new GraphWidget({ title: '5xx by operation', left: perOperation(requestMetrics.serverErrors), width }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'p99 latency by operation (ms)',
      left: perOperation(requestMetrics.latency, 'p99'),
      width,
    }),
    new GraphWidget({
      title: 'Lambda errors by function',
      left: perFunction((fn) => fn.function.metricErrors({ period: fiveMinutes, statistic: 'Sum' })),
      width,
    }),
    new GraphWidget({
      title: 'Lambda throttles by function',
      left: perFunction((fn) => fn.function.metricThrottles({ period: fiveMinutes, statistic: 'Sum' })),
      width,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Catalogue (magazines created and deleted, articles added) and mock requests',
      left: stageCounts(['MagazinesCreated', 'MagazinesDeleted', 'ArticlesAdded', 'MockRequests']),
      width,
    }),
    new GraphWidget({
      title: 'Store faults (503s, throttled, conflicts retried)',
      left: stageCounts(['StoreUnavailable', 'StoreThrottled', 'StoreConflictsRetried']),
      width,
    }),
    new GraphWidget({ title: 'DynamoDB throttled requests', left: [figures.tableThrottles], width }),
  );
  const ticketsRead = new GraphWidget({
    title: 'Tickets one list read added up (the most, count work not folded yet)',
    left: [emf(TICKETS_READ, {}, 'Maximum').with({ label: 'Tickets read' })],
    width,
  });
  const { stream } = props;
  dashboard.addWidgets(
    ticketsRead,
    ...(props.events && stream
      ? [
          new GraphWidget({
            title: 'Change events published, and batches whose events failed',
            left: [emf(EVENTS_PUBLISHED).with({ label: 'Events published' })],
            right: [
              stream.failures.metricApproximateNumberOfMessagesVisible({
                period: fiveMinutes,
                statistic: 'Maximum',
                label: 'Stream failures queue depth',
              }),
            ],
            width,
          }),
        ]
      : []),
  );
  return dashboard;
};
