/** The app: the account decides between the sign-in screens and the signed-in views. */
import { QueryClientProvider } from '@tanstack/react-query';
import { Redirect, useLocation } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import { errorText } from './api/client';
import { queryClient, useMe } from './api/queries';
import { Layout } from './layout';
import { isAppPath, paths, returnPath } from './paths';
import { Routes } from './routes';
import { ErrorBoundary } from './ui/error';
import { AuthScreen } from './views/auth';
import { NotFound } from './views/not-found';
import { ForgotPasswordView, ResetPasswordView } from './views/password-reset';
import { VerifyEmailView } from './views/verify-email';

function Gate() {
  const me = useMe();
  const [location] = useLocation();
  const from = returnPath(useHistoryState<{ from?: unknown } | null>()?.from);
  // Signed in or not: a reset link opened in a browser with a session still sets the password.
  if (location === paths.resetPassword) return <ResetPasswordView />;
  if (location === paths.forgotPassword) return <ForgotPasswordView />;
  // The address-verification link works signed in or not, and starts no session.
  if (location === paths.verifyEmail) return <VerifyEmailView />;
  if (me.isPending) return <p className="boot muted">Loading…</p>;
  if (me.error) {
    return (
      <main className="auth">
        <div className="error" role="alert">
          Cannot load the dashboard: {errorText(me.error)}{' '}
          <button type="button" onClick={() => void me.refetch()}>
            Try again
          </button>
        </div>
      </main>
    );
  }
  // Signed out at an address that is no part of the dashboard (the server's 404 page): say so,
  // rather than a sign-in form that would lead nowhere.
  if (!me.data && !isAppPath(location)) return <NotFound signedOut />;
  if (!me.data) return <AuthScreen mode={location === paths.signUp ? 'signup' : 'signin'} />;
  // Signed in on a sign-in page: where the visitor was going before switching forms (auth.tsx), else home.
  if (location === paths.signIn || location === paths.signUp) return <Redirect to={from ?? paths.home} replace />;
  return (
    <Layout email={me.data.email}>
      <ErrorBoundary resetKey={location}>
        <Routes />
      </ErrorBoundary>
    </Layout>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <ErrorBoundary>
        <Gate />
      </ErrorBoundary>
    </QueryClientProvider>
  );
}
