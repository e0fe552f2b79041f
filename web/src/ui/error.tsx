import { Component, type ErrorInfo, type ReactNode } from 'react';
import { errorText } from '../api/client';

export function ErrorMessage({ error, children }: { error: unknown; children?: ReactNode }) {
  return (
    <div className="error" role="alert">
      {errorText(error)}
      {children}
    </div>
  );
}

/** A render error becomes a message with a way out, never a blank page. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey?: string }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidUpdate(prev: { resetKey?: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="panel-pad">
        <ErrorMessage error={this.state.error}>
          {' '}
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </ErrorMessage>
      </div>
    );
  }
}
