import type { FastifyBaseLogger as Logger } from 'fastify';

/**
 * Runs `run` every `intervalMs` in this process (0 disables it). A run still going when the
 * next tick comes is not overlapped; failures are logged and the next tick tries again. The
 * timer does not keep the process alive. Answers a stop function that resolves once a run in
 * progress has finished, so shutdown can close the database after it.
 */
export function startPeriodic(
  logger: Logger,
  name: string,
  intervalMs: number,
  run: () => Promise<void>,
): () => Promise<void> {
  if (intervalMs <= 0) return () => Promise.resolve();
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = run()
      .catch((err: unknown) => logger.error({ err }, `${name} failed`))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
