import { RouterProvider } from '@tanstack/react-router';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { initI18n } from './i18n';
import { onSessionExpired } from './api/session';
import { AppErrorBoundary } from './components/AppErrorBoundary';
import { router } from './router';
import './styles/base.css';

// A refresh the server refused mid-use (session revoked or expired): back to sign-in, and
// back here afterwards.
onSessionExpired(() => {
  const here = router.state.location.href;
  void router.navigate({ to: '/sign-in', search: here === '/' ? {} : { redirect: here } });
});

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');

function render(container: HTMLElement) {
  // A transition: React renders the first screen in slices and yields to the browser between
  // them, instead of one long task that blocks input while the app starts.
  const app = createRoot(container);
  startTransition(() =>
    app.render(
      <StrictMode>
        <AppErrorBoundary>
          <RouterProvider router={router} />
        </AppErrorBoundary>
      </StrictMode>,
    ),
  );
}

// Rendered once the remembered language is loaded (no flash of German for English users); a
// failed load of the English texts leaves German, the app is usable either way. Not a
// top-level await: that would make the bundler split the entry into many small chunks.
void initI18n()
  .catch(() => undefined)
  .then(() => render(root));
