/**
 * The base rate (Basiszinssatz, §247 BGB) as the Deutsche Bundesbank publishes it, in percent,
 * each in force from its day (it changes on 1 January and 1 July). Operators add the rates
 * published after this table with `DUNNING_BASE_RATES`.
 */
export const PUBLISHED_BASE_RATES: readonly { from: string; percent: number }[] = [
  { from: '2016-07-01', percent: -0.88 },
  { from: '2023-01-01', percent: 1.62 },
  { from: '2023-07-01', percent: 3.12 },
  { from: '2024-01-01', percent: 3.62 },
  { from: '2024-07-01', percent: 3.37 },
  { from: '2025-01-01', percent: 2.27 },
  { from: '2025-07-01', percent: 1.27 },
  { from: '2026-01-01', percent: 1.27 },
];

export type BaseRates = readonly { from: string; percent: number }[];

/** The published table with the configured entries added (a configured day replaces one). */
export function baseRates(configured: BaseRates): BaseRates {
  const byDay = new Map(PUBLISHED_BASE_RATES.map((r) => [r.from, r.percent]));
  for (const r of configured) byDay.set(r.from, r.percent);
  return [...byDay.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([from, percent]) => ({ from, percent }));
}

/** The base rate in force on `day` (before the table's first day: its first rate). */
export function baseRateOn(rates: BaseRates, day: string): number {
  let rate = rates[0]!.percent;
  for (const r of rates) {
    if (r.from > day) break;
    rate = r.percent;
  }
  return rate;
}
