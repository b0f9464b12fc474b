/**
 * Sign-in. The one form without react-hook-form: two fields do not need it, and leaving it out
 * keeps this page, the first most users load, within its JS budget (docs/web.md).
 */
import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { signIn } from '../api/client';
import { splitProblem } from '../api/problems';
import { Field, FormAlert } from '../components/Form';
import '../styles/forms.css';

type FieldName = 'email' | 'password';
type FieldErrors = Partial<Record<FieldName, { message: string }>>;

const route = getRouteApi('/public/sign-in');

function focusFirstInvalid(form: HTMLFormElement, errors: FieldErrors) {
  const first = (['email', 'password'] as const).find((name) => errors[name] !== undefined);
  if (first !== undefined) form.querySelector<HTMLInputElement>(`[name="${first}"]`)?.focus();
}

export function SignInPage() {
  const { t } = useTranslation();
  const search = route.useSearch();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitting, setSubmitting] = useState(false);

  const submit = async (form: HTMLFormElement) => {
    const values = new FormData(form);
    const entry = values.get('password');
    const password = typeof entry === 'string' ? entry : '';
    const missing: FieldErrors = {};
    if (email.trim() === '') missing.email = { message: t('common.required') };
    if (password === '') missing.password = { message: t('common.required') };
    setErrors(missing);
    setFormError(null);
    if (Object.keys(missing).length > 0) return focusFirstInvalid(form, missing);

    setSubmitting(true);
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
      const problem = splitProblem(error, ['email', 'password'] as const);
      setErrors(problem.fields);
      setFormError(known[error.code] ?? problem.form);
      focusFirstInvalid(form, problem.fields);
    } catch {
      setFormError(t('common.unexpected'));
    } finally {
      setSubmitting(false);
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit(event.currentTarget);
  };

  return (
    <section className="card" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{t('signIn.title')}</h1>
      <p className="lead">{t('signIn.intro')}</p>
      <form className="form" noValidate onSubmit={onSubmit}>
        <FormAlert message={formError} />
        <Field
          label={t('common.email')}
          name="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={errors.email}
        />
        <Field
          label={t('common.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={errors.password}
        />
        <button type="submit" className="button button-primary" disabled={submitting}>
          {submitting ? t('signIn.submitting') : t('signIn.submit')}
        </button>
      </form>
      <p className="card-footer">
        <Link to="/forgot-password" search={email === '' ? {} : { email }}>
          {t('signIn.forgot')}
        </Link>
        <Link to="/accept-invitation" search={email === '' ? {} : { email }}>
          {t('signIn.invitation')}
        </Link>
      </p>
    </section>
  );
}
