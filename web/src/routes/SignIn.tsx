import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { signIn } from '../api/client';
import { applyProblem } from '../api/problems';
import { Field, FormAlert } from '../components/Form';
import '../styles/forms.css';

interface Values {
  email: string;
  password: string;
}

const route = getRouteApi('/public/sign-in');

export function SignInPage() {
  const { t } = useTranslation();
  const search = route.useSearch();
  const navigate = useNavigate();
  const [formError, setFormError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    getValues,
    formState: { errors, isSubmitting },
  } = useForm<Values>({ defaultValues: { email: '', password: '' } });

  const onSubmit = async ({ email, password }: Values) => {
    setFormError(null);
    try {
      const { data, error } = await signIn(email, password);
      if (data) {
        await navigate({ href: search.redirect ?? '/' });
        return;
      }
      // The server's own words for a known refusal read better in the user's language.
      const known: Record<string, string> = {
        invalid_credentials: t('signIn.invalidCredentials'),
        email_not_confirmed: t('signIn.emailNotConfirmed'),
        rate_limited: t('signIn.rateLimited'),
      };
      const message = applyProblem(error, setError, ['email', 'password']);
      setFormError(known[error.code] ?? message);
    } catch {
      setFormError(t('common.unexpected'));
    }
  };

  return (
    <section className="card" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{t('signIn.title')}</h1>
      <p className="lead">{t('signIn.intro')}</p>
      <form className="form" noValidate onSubmit={(event) => void handleSubmit(onSubmit)(event)}>
        <FormAlert message={formError} />
        <Field
          label={t('common.email')}
          type="email"
          autoComplete="username"
          required
          registration={register('email', { required: t('common.required') })}
          error={errors.email}
        />
        <Field
          label={t('common.password')}
          type="password"
          autoComplete="current-password"
          required
          registration={register('password', { required: t('common.required') })}
          error={errors.password}
        />
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {isSubmitting ? t('signIn.submitting') : t('signIn.submit')}
        </button>
      </form>
      <p className="card-footer">
        <Link
          to="/forgot-password"
          search={() => {
            const email = getValues('email');
            return email === '' ? {} : { email };
          }}
        >
          {t('signIn.forgot')}
        </Link>
      </p>
    </section>
  );
}
