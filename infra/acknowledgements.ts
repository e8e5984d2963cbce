import { type Stack, Validations } from 'aws-cdk-lib';
import type { SpecRestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ManagedPolicy } from 'aws-cdk-lib/aws-iam';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';

/** The cdk-nag findings the stack accepts, each with the reason it is right here. */

export const acknowledgeApi = (api: SpecRestApi, waf: boolean) => {
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG2',
    reason:
      "Requests are validated in the functions, so that every refusal is the API's error object with a precise developerMessage (an API Gateway validator answers in its own words).",
  });
  if (!waf)
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'The WAF was turned off for this stage (`-c waf=false`, the default in dev): stage throttling and, where keys are on, the usage plans bound the load.',
    });
  const cloudWatchRole = api.node.tryFindChild('CloudWatchRole');
  if (cloudWatchRole) {
    Validations.of(cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The AWS-managed policy is the documented way to let API Gateway write access and execution logs for the account.',
    });
  }
};

export const acknowledgeTopic = (topic: Topic) => {
  Validations.of(topic).acknowledge(
    {
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry no data of the API; CloudWatch cannot publish to a topic under the AWS-managed SNS key, and a customer key costs more than the notes it would guard.',
    },
    {
      id: 'Serverless-SNSRedrivePolicy',
      reason:
        'The only subscription is an email address: SNS retries email delivery itself, and an alarm left undelivered still shows on the dashboard and in the alarm history.',
    },
  );
};

/** A path parameter (`/magazines/{id}`) can only be matched by `*` in an execute-api ARN. */
export const acknowledgePathWildcards = (stack: Stack, publisherPolicy: ManagedPolicy) => {
  const document = stack.resolve(publisherPolicy.document) as { Statement: { Resource: unknown[] }[] };
  for (const resource of document.Statement.flatMap((statement) => statement.Resource)) {
    const flat = flattenCfnReference(resource);
    if (!flat.includes('*')) continue;
    Validations.of(publisherPolicy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${flat}]`,
      reason:
        'The `*` stands for one path parameter of a write method ({id}); the policy names each write method and resource of the API.',
    });
  }
};
