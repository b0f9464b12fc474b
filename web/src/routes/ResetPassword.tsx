import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api, signIn } from '../api/client';
import { applyProblem } from '../api/problems';
import { Field, FormAlert } from '../components/Form';
import '../styles/forms.css';

interface Values {
  email: string;
  code: string;
  newPassword: string;
}

const resetRoute = getRouteApi('/public/reset-password');
const invitationRoute = getRouteApi('/public/accept-invitation');

interface Texts {
  title: string;
  intro: string;
  submit: string;
}

/**
 * Sets a password with a mailed code, then signs in: a reset code, or the code of an
 * invitation (the same API route; only the words differ).
 */
function PasswordCodeForm({ texts, email }: { texts: Texts; email: string | undefined }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [formError, setFormError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<Values>({ defaultValues: { email: email ?? '', code: '', newPassword: '' } });

  const onSubmit = async (values: Values) => {
    setFormError(null);
    try {
      const { error } = await api.POST('/v1/auth/reset-password', {
        body: { ...values, revokeApiTokens: true },
      });
      if (error) {
        const message = applyProblem(error, setError, ['email', 'code', 'newPassword']);
        setFormError(error.code === 'code_invalid' ? t('resetPassword.codeInvalid') : message);
        return;
      }
      const signedIn = await signIn(values.email, values.newPassword);
      await navigate({ to: signedIn.data ? '/' : '/sign-in' });
    } catch {
      setFormError(t('common.unexpected'));
    }
  };

  return (
    <section className="card" aria-labelledby="reset-title">
      <h1 id="reset-title">{texts.title}</h1>
      <p className="lead">{texts.intro}</p>
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
          label={t('resetPassword.code')}
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          registration={register('code', { required: t('common.required') })}
          error={errors.code}
        />
        <Field
          label={t('resetPassword.newPassword')}
          type="password"
          autoComplete="new-password"
          required
          hint={t('setup.passwordHint')}
          registration={register('newPassword', { required: t('common.required') })}
          error={errors.newPassword}
        />
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {texts.submit}
        </button>
      </form>
      <p className="card-footer">
        <Link to="/sign-in">{t('common.backToSignIn')}</Link>
      </p>
    </section>
  );
}

export function ResetPasswordPage() {
  const { t } = useTranslation();
  const { email } = resetRoute.useSearch();
  const texts = {
    title: t('resetPassword.title'),
    intro: t('resetPassword.intro'),
    submit: t('resetPassword.submit'),
  };
  return <PasswordCodeForm texts={texts} email={email} />;
}

export function AcceptInvitationPage() {
  const { t } = useTranslation();
  const { email } = invitationRoute.useSearch();
  const texts = {
    title: t('acceptInvitation.title'),
    intro: t('acceptInvitation.intro'),
    submit: t('acceptInvitation.submit'),
  };
  return <PasswordCodeForm texts={texts} email={email} />;
}
