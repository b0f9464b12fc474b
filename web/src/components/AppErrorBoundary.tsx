import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ErrorView } from './ErrorView';

interface State {
  failed: boolean;
}

/** The last line: an error outside any route (providers, the router itself) shows ErrorView. */
export class AppErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // The browser console is where a user or support finds it; nothing leaves the page.
    // eslint-disable-next-line no-console
    console.error(error, info.componentStack);
  }

  override render() {
    return this.state.failed ? <ErrorView /> : this.props.children;
  }
}
