/** An event of bench/tail-probe.cjs: its kind, when it began and how long it lasted (ms). */
export interface ProbeEvent {
  e: string;
  kind?: string;
  t: number;
  ms: number;
  /** `runq`: the CPU time (ms) the process's other threads had in the window. */
  threads?: number;
  /** `runq`: that CPU time by thread name. */
  by?: Record<string, number>;
}
export function probeEvents(file: string): ProbeEvent[];
export function stallsIn(events: ProbeEvent[], from: number, to: number): string;
