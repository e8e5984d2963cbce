import type { Recording } from '../support/answers';
import { competitorRecording, GET_ID, LIST_LIMIT, type Scenario, scenarios } from '../support/fixtures';
import type { Response } from '../support/runner';
import { type RecordedScenario, recordingKey } from './record';
import {
  type Bundle,
  competitors,
  FUNCTION_OF,
  type Mode,
  REFERENCE,
  REFERENCE_AGAIN,
  type Subjects,
  type Tree,
  variants,
} from './subjects';

/** A warm case: one subject answering one scenario, and how its response is known to be the normal one. */
export interface Case {
  readonly subject: string;
  readonly scenario: Scenario;
  readonly bundle: Bundle;
  readonly recording: Recording;
  /** Why a response is not the normal one, if it is not. */
  readonly check: (response: Response) => string | undefined;
  /** Only these modes (all when absent). */
  readonly modes?: readonly Mode[];
}

const sameAs =
  (expected: Response, scenario: Scenario) =>
  (response: Response): string | undefined => {
    if (response.statusCode !== expected.statusCode) return `status ${response.statusCode}, not ${expected.statusCode}`;
    if (scenario === 'post') return response.headers.Location ? undefined : 'no Location';
    if (response.body !== expected.body) return `body differs from DynamoDB Local's:\n${response.body.slice(0, 300)}`;
    if (response.headers.ETag !== expected.headers.ETag) return 'ETag differs';
    return undefined;
  };

const competitorCheck =
  (scenario: Scenario) =>
  (response: Response): string | undefined => {
    const wanted = scenario === 'post' ? 201 : 200;
    if (response.statusCode !== wanted) return `status ${response.statusCode}: ${response.body.slice(0, 200)}`;
    if (scenario === 'get' && !response.body.includes(`"${GET_ID}"`)) return 'not the magazine';
    if (scenario === 'listJson' && (JSON.parse(response.body) as { results: unknown[] }).results.length !== LIST_LIMIT)
      return 'not a full page';
    if (scenario === 'listXml' && response.body.split('<magazine>').length - 1 !== LIST_LIMIT) return 'not a full page';
    return undefined;
  };

export const casesOf = (
  subjects: Subjects,
  trees: readonly Tree[],
  recordings: ReadonlyMap<string, RecordedScenario>,
): Case[] => {
  const cases: Case[] = [];
  for (const tree of trees)
    for (const scenario of scenarios) {
      const recorded = recordings.get(recordingKey(tree.key, scenario))!;
      cases.push({
        subject: tree.label,
        scenario,
        bundle: subjects.treeBundles.get(tree.key)![FUNCTION_OF[scenario]]!,
        recording: recorded.recording,
        check: sameAs(recorded.response, scenario),
      });
    }
  for (const variant of variants) {
    const recorded = recordings.get(recordingKey('now', variant.scenario))!;
    cases.push({
      subject: variant.label,
      scenario: variant.scenario,
      bundle: subjects.variantBundles.get(variant.key)!,
      recording: recorded.recording,
      check: sameAs(recorded.response, variant.scenario),
      modes: variant.modes,
    });
  }
  cases.push({
    subject: REFERENCE,
    scenario: 'get',
    bundle: subjects.reference,
    recording: competitorRecording('get'),
    check: competitorCheck('get'),
  });
  // Measured only in its pair with the reference.
  cases.push({
    subject: REFERENCE_AGAIN,
    scenario: 'get',
    bundle: subjects.referenceAgain,
    recording: competitorRecording('get'),
    check: competitorCheck('get'),
    modes: [],
  });
  for (const competitor of competitors)
    for (const scenario of scenarios)
      cases.push({
        subject: competitor.label,
        scenario,
        bundle: subjects.competitorBundles.get(competitor.key)!,
        recording: competitorRecording(scenario),
        check: competitorCheck(scenario),
      });
  return cases;
};
