import { type IAspect, Stack } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * Variables that would hold a secret in plain text. A function's environment is readable by
 * anyone allowed `lambda:GetFunctionConfiguration`, and sits in the template and in
 * CloudFormation's console: a secret is named there by its ARN (`…_SECRET_ARN`), never given.
 */
const SECRET_NAME = /(^|_)(KEY|SECRET|TOKEN|PASSWORD|CREDENTIALS?)$/i;

/**
 * Fails synthesis when a function of the stack would be given a secret in plain text: above all
 * a cursor key (`CURSOR_KEY`), with which a deployed stage would sign cursors that anyone who
 * can read the key could forge.
 */
export class NoPlainSecrets implements IAspect {
  visit(node: IConstruct): void {
    if (!(node instanceof CfnFunction)) return;
    // The function construct gives its environment lazily: resolved here, its names are known.
    const environment = Stack.of(node).resolve(node.environment) as { variables?: Record<string, unknown> } | undefined;
    const plain = Object.keys(environment?.variables ?? {}).filter((name) => SECRET_NAME.test(name));
    if (plain.length > 0)
      throw new Error(
        `${node.node.path}: environment variable ${plain.join(', ')} would hold a secret in plain text, readable by anyone who can read the function's configuration. Keep it in Secrets Manager and give the function its ARN (CURSOR_KEY_SECRET_ARN).`,
      );
  }
}
