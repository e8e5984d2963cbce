import { randomBytes } from 'node:crypto';
import { type PlanName, type UsagePlan, usagePlans } from '../infra/usage-plans';

/** Why a key was refused, as API Gateway's gateway response names it, and what the local log and client are told. */
export interface KeyRefusal {
  readonly responseType: 'INVALID_API_KEY' | 'THROTTLED' | 'QUOTA_EXCEEDED';
  readonly developerMessage: string;
}

interface KeyState {
  readonly plan: UsagePlan;
  readonly planName: PlanName;
  /** Tokens in the bucket (at most the plan's burst) when last counted. */
  tokens: number;
  refilledAt: number;
  /** The UTC day (`YYYY-MM-DD`) and how many requests the key made in it. */
  day: string;
  used: number;
}

/**
 * The local server's API keys, checked as API Gateway checks a usage plan's: the key must be
 * known, a token bucket per key (it holds `burst` tokens and gains `rate` a second; a request
 * takes one) gives the rate, and a count per UTC day the quota. A refused request uses no quota.
 */
export class LocalApiKeys {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Issues a new key in `plan`; its value is random, as API Gateway's are. */
  issue(planName: PlanName): string {
    const key = `local-${planName}-${randomBytes(15).toString('base64url')}`;
    const plan = usagePlans[planName];
    this.keys.set(key, { plan, planName, tokens: plan.burst, refilledAt: this.now(), day: '', used: 0 });
    return key;
  }

  /** Nothing when the request may go on; else the gateway response API Gateway would give. */
  check(header: string | undefined): KeyRefusal | undefined {
    if (header === undefined || header === '')
      return {
        responseType: 'INVALID_API_KEY',
        developerMessage:
          'This deployment requires an API key: the request had no `x-api-key` header. Send the key you were issued in it.',
      };
    const state = this.keys.get(header);
    if (!state)
      return {
        responseType: 'INVALID_API_KEY',
        developerMessage:
          'The `x-api-key` header holds no key of this deployment (unknown or revoked). Send the key you were issued.',
      };
    const now = this.now();
    state.tokens = Math.min(state.plan.burst, state.tokens + ((now - state.refilledAt) / 1000) * state.plan.rate);
    state.refilledAt = now;
    if (state.tokens < 1)
      return {
        responseType: 'THROTTLED',
        developerMessage: `The API key's plan (${state.planName}) allows ${state.plan.rate} requests a second, in bursts of up to ${state.plan.burst}; slow down.`,
      };
    const day = new Date(now).toISOString().slice(0, 10);
    if (state.day !== day) {
      state.day = day;
      state.used = 0;
    }
    if (state.used >= state.plan.dailyQuota)
      return {
        responseType: 'QUOTA_EXCEEDED',
        developerMessage: `The API key's plan (${state.planName}) allows ${state.plan.dailyQuota} requests a day (UTC), and they are used; the quota resets at midnight UTC.`,
      };
    state.tokens -= 1;
    state.used += 1;
    return undefined;
  }
}
