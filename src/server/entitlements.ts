/**
 * Who may use premium routes. The local edition grants premium unless the
 * user turns it off (setting, `--no-premium`, STUDY_BRIDGE_PREMIUM=0).
 */
export interface Entitlements {
  premium(): boolean;
}

export const staticEntitlements = (premium: boolean): Entitlements => ({ premium: () => premium });

export function premiumFromEnv(env: NodeJS.ProcessEnv = process.env): boolean | undefined {
  const v = env.STUDY_BRIDGE_PREMIUM;
  if (v === undefined || v === '') return undefined;
  return !['0', 'false', 'off', 'no'].includes(v.toLowerCase());
}
