/**
 * The usage plans of a deployment that requires API keys, in one table: each key belongs to one
 * plan, which limits it to a steady rate (requests per second), a burst above it (API Gateway's
 * token bucket: the bucket holds `burst` tokens and refills at `rate` a second) and a number of
 * requests per UTC day. The local server (`npm start -- --keys`) applies the same table.
 */
export const usagePlans = {
  /** Anyone who asked for a key: enough to build and try a client, or serve a small site. */
  free: { rate: 5, burst: 10, dailyQuota: 5_000, description: 'Free: 5 requests/s, bursts of 10, 5,000 a day' },
  /** A partner with an agreement: a production client. */
  partner: {
    rate: 50,
    burst: 100,
    dailyQuota: 500_000,
    description: 'Partner: 50 requests/s, bursts of 100, 500,000 a day',
  },
} as const satisfies Record<string, UsagePlan>;

export interface UsagePlan {
  readonly rate: number;
  readonly burst: number;
  readonly dailyQuota: number;
  readonly description: string;
}

export type PlanName = keyof typeof usagePlans;

export const planNames = Object.keys(usagePlans) as PlanName[];

export const isPlanName = (name: string): name is PlanName => Object.hasOwn(usagePlans, name);

/**
 * A client's key: its name (the key's name in API Gateway) and its plan, or `none`: the key is
 * kept (its value too) but in no plan, so API Gateway refuses it. API Gateway lets a key belong to
 * one plan of a stage only, so a client moves to another plan in two deploys, through `none`.
 */
export interface ApiKeySetting {
  readonly name: string;
  readonly plan: PlanName | 'none';
}

/**
 * Reads `client:plan,client:plan` (the `apiKeys` setting): a client name of letters, digits, `-`
 * and `_`, and a plan of the table. A name may appear once.
 */
export const parseApiKeys = (value: string): ApiKeySetting[] => {
  const keys: ApiKeySetting[] = [];
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [name = '', plan = '', ...rest] = entry.split(':');
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(name) || rest.length > 0)
      throw new Error(
        `Context \`apiKeys\`: \`${entry}\` is not \`client:plan\` with a client name of letters, digits, - and _.`,
      );
    if (!isPlanName(plan) && plan !== 'none')
      throw new Error(`Context \`apiKeys\`: the plan of \`${name}\` must be one of ${planNames.join(', ')}, or none.`);
    if (keys.some((key) => key.name === name)) throw new Error(`Context \`apiKeys\`: \`${name}\` is named twice.`);
    keys.push({ name, plan: plan as PlanName | 'none' });
  }
  return keys;
};
