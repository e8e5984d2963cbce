import { DomainName, EndpointType, type IRestApi, SecurityPolicy, type Stage } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { CustomDomain } from './stage-settings';

export interface CustomDomainNameProps {
  readonly domain: CustomDomain;
  readonly api: IRestApi;
  readonly stage: Stage;
}

/**
 * The API under a name of its own: a regional API Gateway domain with the given certificate, the
 * stage mapped at its root (so `{base_url}` is `https://<name>`, without the stage), and, with a
 * hosted zone, the alias record that points the name at it.
 */
export class CustomDomainName extends Construct {
  readonly domainName: DomainName;

  constructor(scope: Construct, id: string, props: CustomDomainNameProps) {
    super(scope, id);
    const { domain } = props;
    this.domainName = new DomainName(this, 'Name', {
      domainName: domain.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    this.domainName.addBasePathMapping(props.api, { stage: props.stage });
    if (domain.hostedZone) {
      new ARecord(this, 'Record', {
        zone: HostedZone.fromHostedZoneAttributes(this, 'Zone', {
          hostedZoneId: domain.hostedZone.id,
          zoneName: domain.hostedZone.name,
        }),
        recordName: domain.domainName,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domainName)),
      });
    }
  }
}
