/** An event of bench/tail-probe.cjs: its kind, when it began and how long it lasted (ms). */
export interface ProbeEvent {
  e: string;
  kind?: string;
  t: number;
  ms: number;
}
export function probeEvents(file: string): ProbeEvent[];
export function stallsIn(events: ProbeEvent[], from: number, to: number): string;
