/** The workspace plans of the reference's Limits section and DESIGN.md. */
export const PLAN_NAMES = ['free', 'payg'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  name: PlanName;
  requestsPerMinute: number;
}

export const PLANS: Record<PlanName, Plan> = {
  free: { name: 'free', requestsPerMinute: 60 },
  payg: { name: 'payg', requestsPerMinute: 600 },
};

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}
