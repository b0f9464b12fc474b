import { useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../api/client';
import { keys } from '../api/keys';
import { ProblemError, applyProblem } from '../api/problems';
import { QueryProvider, queryClient } from '../api/query';
import { setSession } from '../api/session';
import { Field, FormAlert } from '../components/Form';
import '../styles/forms.css';

interface Values {
  companyName: string;
  name: string;
  email: string;
  password: string;
}

/**
 * The setup link is `/setup#token=…`: a fragment never reaches a server log or a Referer.
 * Read once at mount.
 */
function tokenFromHash(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  return token === null || token === '' ? null : token;
}

function SetupForm({ token }: { token: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [formError, setFormError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<Values>({ defaultValues: { companyName: '', name: '', email: '', password: '' } });

  const onSubmit = async (values: Values) => {
    setFormError(null);
    try {
      const { data, error } = await api.POST('/v1/web/setup', { body: { token, ...values } });
      if (error) {
        setFormError(applyProblem(error, setError, ['companyName', 'name', 'email', 'password']));
        return;
      }
      setSession(data);
      // The link is used up: its answer would be stale.
      queryClient.removeQueries({ queryKey: keys.setup.all });
      await navigate({ to: '/', hash: '' });
    } catch {
      setFormError(t('common.unexpected'));
    }
  };

  const required = { required: t('common.required') };
  return (
    <form className="form" noValidate onSubmit={(event) => void handleSubmit(onSubmit)(event)}>
      <FormAlert message={formError} />
      <Field
        label={t('setup.companyName')}
        autoComplete="organization"
        required
        registration={register('companyName', required)}
        error={errors.companyName}
      />
      <Field
        label={t('setup.name')}
        autoComplete="name"
        required
        registration={register('name', required)}
        error={errors.name}
      />
      <Field
        label={t('common.email')}
        type="email"
        autoComplete="username"
        required
        registration={register('email', required)}
        error={errors.email}
      />
      <Field
        label={t('common.password')}
        type="password"
        autoComplete="new-password"
        required
        hint={t('setup.passwordHint')}
        registration={register('password', required)}
        error={errors.password}
      />
      <button type="submit" className="button button-primary" disabled={isSubmitting}>
        {t('setup.submit')}
      </button>
    </form>
  );
}

function SetupScreen() {
  const { t } = useTranslation();
  const [token] = useState(tokenFromHash);
  const link = useQuery({
    queryKey: keys.setup.link(token ?? ''),
    enabled: token !== null,
    retry: false,
    queryFn: async () => {
      const { data, error } = await api.POST('/v1/web/setup/check', {
        body: { token: token ?? '' },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });

  if (token !== null && link.isPending) {
    return (
      <section className="card" aria-busy="true">
        <p role="status">{t('setup.checking')}</p>
      </section>
    );
  }
  // Only the server's verdict means the link is spent; a lost connection or a 5xx may pass.
  const refused = link.error instanceof ProblemError && link.error.problem.status < 500;
  if (link.isError && !refused) {
    return (
      <section className="card" aria-labelledby="setup-title">
        <h1 id="setup-title">{t('setup.title')}</h1>
        <p role="alert">{t('common.unexpected')}</p>
        <button type="button" className="button" onClick={() => void link.refetch()}>
          {t('errors.retry')}
        </button>
      </section>
    );
  }
  if (token === null || link.isError) {
    return (
      <section className="card" aria-labelledby="setup-title">
        <h1 id="setup-title">{t('setup.invalidTitle')}</h1>
        <p>{t('setup.invalid')}</p>
      </section>
    );
  }
  return (
    <section className="card" aria-labelledby="setup-title">
      <h1 id="setup-title">{t('setup.title')}</h1>
      <p className="lead">{t('setup.intro')}</p>
      <SetupForm token={token} />
    </section>
  );
}

export function SetupPage() {
  return (
    <QueryProvider>
      <SetupScreen />
    </QueryProvider>
  );
}
