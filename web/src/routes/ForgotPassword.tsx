import { Link, getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../api/client';
import { applyProblem } from '../api/problems';
import { Field, FormAlert, FormNote } from '../components/Form';
import '../styles/forms.css';

interface Values {
  email: string;
}

const route = getRouteApi('/public/forgot-password');

export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const search = route.useSearch();
  const [formError, setFormError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    control,
    formState: { errors, isSubmitting },
  } = useForm<Values>({ defaultValues: { email: search.email ?? '' } });
  const email = useWatch({ control, name: 'email' });

  const onSubmit = async ({ email }: Values) => {
    setFormError(null);
    setSent(false);
    try {
      const { error } = await api.POST('/v1/auth/forgot-password', { body: { email } });
      if (error) setFormError(applyProblem(error, setError, ['email']));
      else setSent(true);
    } catch {
      setFormError(t('common.unexpected'));
    }
  };

  return (
    <section className="card" aria-labelledby="forgot-title">
      <h1 id="forgot-title">{t('forgotPassword.title')}</h1>
      <p className="lead">{t('forgotPassword.intro')}</p>
      <form className="form" noValidate onSubmit={(event) => void handleSubmit(onSubmit)(event)}>
        <FormAlert message={formError} />
        <FormNote message={sent ? t('forgotPassword.sent') : null} />
        <Field
          label={t('common.email')}
          type="email"
          autoComplete="username"
          required
          registration={register('email', { required: t('common.required') })}
          error={errors.email}
        />
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {t('forgotPassword.submit')}
        </button>
      </form>
      <p className="card-footer">
        <Link to="/reset-password" search={email === '' ? {} : { email }}>
          {t('forgotPassword.haveCode')}
        </Link>
        <Link to="/sign-in">{t('common.backToSignIn')}</Link>
      </p>
    </section>
  );
}
