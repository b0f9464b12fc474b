/**
 * The query client, loaded with the first screen that reads or changes server data (not with
 * sign-in: TanStack Query stays out of the sign-in route's JS budget). Screens get it through
 * `QueryProvider`, which the shell and the public pages that query wrap around themselves.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { onRetry } from './network';
import { ProblemError } from './problems';
import { onSessionExpired } from './session';

/**
 * A problem answer (4xx) is final and not retried; a lost connection or a 5xx is retried once
 * before the error shows (the banner offers Retry after that).
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: true,
      retry: (failures, error) =>
        failures < 1 &&
        !(
          error instanceof ProblemError &&
          error.problem.status >= 400 &&
          error.problem.status < 500
        ),
    },
    mutations: { retry: false },
  },
});

// Another user's data must not outlive the session that read it.
onSessionExpired(() => queryClient.clear());
onRetry(() => queryClient.refetchQueries({ type: 'active' }));

export function QueryProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
