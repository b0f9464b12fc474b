/**
 * Personal API tokens: create one (its secret is answered once — shown with a copy button and
 * the warning that it will not be shown again) and revoke. A token acts as its user and needs
 * the installation's client key (`x-api-key`) beside it.
 */
import type { components } from '@kontor/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { AdminDialog } from '../../components/AdminDialog';
import { ErrorAlert, OneTimeSecret, unwrap } from '../../components/AdminKit';
import { Field, FormAlert } from '../../components/Form';
import { formatDateTime } from '../../format';

type Token = components['schemas']['ApiToken'];
type Created = components['schemas']['CreateApiTokenResponse'];

interface Values {
  name: string;
  expiresAt: string;
}

/** The chosen day's end in the browser's time zone: the token works through that day. */
function endOfDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d, 23, 59, 59).toISOString();
}

function CreateToken({ onCreated }: { onCreated: (token: Created) => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const { register, handleSubmit, setError, reset, formState } = useForm<Values>({
    defaultValues: { name: '', expiresAt: '' },
  });
  const create = async (values: Values) => {
    setFormError(null);
    try {
      const result = await api.POST('/v1/api-tokens', {
        body: {
          name: values.name,
          ...(values.expiresAt ? { expiresAt: endOfDay(values.expiresAt) } : {}),
        },
      });
      if (result.error)
        return setFormError(applyProblem(result.error, setError, ['name', 'expiresAt']));
      await queryClient.invalidateQueries({ queryKey: keys.apiTokens.all });
      reset();
      onCreated(result.data);
    } catch {
      setFormError(t('common.unexpected'));
    }
  };
  return (
    <form
      className="admin-form"
      noValidate
      onSubmit={(e) => void handleSubmit(create)(e)}
      aria-labelledby="token-new"
    >
      <h3 id="token-new">{t('settingsAdmin.tokens.newTitle')}</h3>
      <FormAlert message={formError} />
      <div className="admin-grid">
        <Field
          label={t('settingsAdmin.tokens.name')}
          registration={register('name', { required: t('common.required') })}
          error={formState.errors.name}
        />
        <Field
          label={t('settingsAdmin.tokens.expiresAt')}
          type="date"
          hint={t('settingsAdmin.tokens.expiresHint')}
          registration={register('expiresAt')}
          error={formState.errors.expiresAt}
        />
      </div>
      <div className="admin-actions">
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
          {t('settingsAdmin.tokens.create')}
        </button>
      </div>
    </form>
  );
}

function RevokeToken({ token }: { token: Token }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const revoke = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.DELETE('/v1/api-tokens/{tokenId}', { params: { path: { tokenId: token.id } } }),
      ),
    onSuccess: async () => {
      setOpen(false);
      await queryClient.invalidateQueries({ queryKey: keys.apiTokens.all });
    },
  });
  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={() => setOpen(true)}
        aria-label={t('settingsAdmin.tokens.revokeOf', { name: token.name })}
      >
        {t('settingsAdmin.tokens.revoke')}
      </button>
      <AdminDialog
        open={open}
        onOpenChange={setOpen}
        title={t('settingsAdmin.tokens.revokeTitle', { name: token.name })}
        description={t('settingsAdmin.tokens.revokeText')}
      >
        <ErrorAlert error={revoke.error} />
        <button
          type="button"
          className="button button-primary"
          disabled={revoke.isPending}
          onClick={() => revoke.mutate()}
        >
          {t('settingsAdmin.tokens.revokeConfirm')}
        </button>
      </AdminDialog>
    </>
  );
}

export function ApiTokensTab() {
  const { t } = useTranslation();
  const [created, setCreated] = useState<Created | null>(null);
  // Admins see every user's tokens: each row names its user.
  const users = useQuery({
    queryKey: keys.users.list({ limit: 100 }),
    queryFn: async () => unwrap(await api.GET('/v1/users', { params: { query: { limit: 100 } } })),
  });
  const userName = (id: string) => users.data?.data.find((user) => user.id === id)?.name ?? id;
  const tokens = useQuery({
    queryKey: keys.apiTokens.list({ limit: 100 }),
    queryFn: async () =>
      unwrap(await api.GET('/v1/api-tokens', { params: { query: { limit: 100 } } })),
  });
  return (
    <section className="admin-panel" aria-labelledby="tokens-title">
      <h2 id="tokens-title">{t('settingsAdmin.tokens.title')}</h2>
      <p className="muted">{t('settingsAdmin.tokens.intro')}</p>
      {created ? (
        <section className="admin-panel" aria-labelledby="token-created">
          <h3 id="token-created">
            {t('settingsAdmin.tokens.createdTitle', { name: created.name })}
          </h3>
          <OneTimeSecret label={t('settingsAdmin.tokens.secret')} secret={created.token} />
          <button type="button" className="button" onClick={() => setCreated(null)}>
            {t('admin.secretStored')}
          </button>
        </section>
      ) : null}
      <ErrorAlert error={tokens.error} />
      {tokens.data?.data.length === 0 ? <p>{t('settingsAdmin.tokens.empty')}</p> : null}
      {tokens.data && tokens.data.data.length > 0 ? (
        <table className="admin-table">
          <caption className="visually-hidden">{t('settingsAdmin.tokens.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('settingsAdmin.tokens.name')}</th>
              <th scope="col">{t('settingsAdmin.tokens.user')}</th>
              <th scope="col">{t('settingsAdmin.tokens.prefix')}</th>
              <th scope="col">{t('settingsAdmin.tokens.createdAt')}</th>
              <th scope="col">{t('settingsAdmin.tokens.lastUsed')}</th>
              <th scope="col">{t('settingsAdmin.tokens.expiresAt')}</th>
              <th scope="col">{t('settingsAdmin.users.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.data.map((token) => (
              <tr key={token.id}>
                <th scope="row">{token.name}</th>
                <td>{userName(token.userId)}</td>
                <td>
                  <code>{token.prefix}…</code>
                </td>
                <td>{formatDateTime(token.createdAt)}</td>
                <td>{formatDateTime(token.lastUsedAt)}</td>
                <td>{formatDateTime(token.expiresAt)}</td>
                <td>
                  <RevokeToken token={token} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <CreateToken onCreated={setCreated} />
    </section>
  );
}
