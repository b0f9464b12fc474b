/**
 * Users and roles: invite (a preview first — seats, price effect, problems — then the real
 * invitation, which mails a code), change a role, remove a user. The API guards the last
 * admin (409 `last_admin`); its answer is shown where the change was tried.
 */
import type { components } from '@kontor/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { useSession } from '../../api/session';
import { AdminDialog } from '../../components/AdminDialog';
import { ErrorAlert, unwrap } from '../../components/AdminKit';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { formatDateTime, formatMoney } from '../../format';

type User = components['schemas']['User'];
type Preview = components['schemas']['PreviewInvitationResponse'];
type Role = User['role'];

const ROLES: Role[] = ['user', 'admin'];

interface InviteValues {
  name: string;
  email: string;
  role: Role;
}

function PreviewView({ preview }: { preview: Preview }) {
  const { t } = useTranslation();
  return (
    <div className={preview.valid ? 'form-note' : 'form-alert'} role="status">
      <p>
        {preview.valid
          ? t('settingsAdmin.users.previewOk')
          : t('settingsAdmin.users.previewRefused')}
      </p>
      <p>
        {t('settingsAdmin.users.seats', {
          used: preview.seats.used,
          after: preview.seats.afterInvite,
          included: preview.seats.included,
        })}
      </p>
      {preview.priceEffect.monthlyDelta === 0 ? null : (
        <p>
          {t('settingsAdmin.users.priceEffect', {
            amount: formatMoney(preview.priceEffect.monthlyDelta, preview.priceEffect.currency),
          })}
        </p>
      )}
      {preview.problems.length > 0 ? (
        <ul>
          {preview.problems.map((problem) => (
            <li key={problem.code}>{problem.message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function InviteForm() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [previewed, setPreview] = useState<{ of: string; preview: Preview } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const { register, handleSubmit, setError, control, reset, formState } = useForm<InviteValues>({
    defaultValues: { name: '', email: '', role: 'user' },
  });
  // A preview speaks of the values it was made for: changed values need a new one.
  const current = JSON.stringify(useWatch({ control, name: ['name', 'email', 'role'] }));
  const preview = previewed?.of === current ? previewed.preview : null;

  const check = async (values: InviteValues) => {
    setFormError(null);
    setNote(null);
    try {
      const result = await api.POST('/v1/users/confirm', { body: values });
      if (result.error)
        return setFormError(applyProblem(result.error, setError, ['name', 'email', 'role']));
      setPreview({
        of: JSON.stringify([values.name, values.email, values.role]),
        preview: result.data,
      });
    } catch {
      setFormError(t('common.unexpected'));
    }
  };
  const invite = async (values: InviteValues) => {
    setFormError(null);
    try {
      const result = await api.POST('/v1/users', { body: values });
      if (result.error)
        return setFormError(applyProblem(result.error, setError, ['name', 'email', 'role']));
      await queryClient.invalidateQueries({ queryKey: keys.users.all });
      reset();
      setPreview(null);
      setNote(t('settingsAdmin.users.invited', { email: result.data.email }));
    } catch {
      setFormError(t('common.unexpected'));
    }
  };
  const { errors, isSubmitting } = formState;
  return (
    <form
      className="admin-form"
      noValidate
      onSubmit={(e) => void handleSubmit(check)(e)}
      aria-labelledby="invite-title"
    >
      <h3 id="invite-title">{t('settingsAdmin.users.inviteTitle')}</h3>
      <FormAlert message={formError} />
      <FormNote message={note} />
      <div className="admin-grid">
        <Field
          label={t('settingsAdmin.users.name')}
          registration={register('name', { required: t('common.required') })}
          error={errors.name}
        />
        <Field
          label={t('common.email')}
          type="email"
          registration={register('email', { required: t('common.required') })}
          error={errors.email}
        />
        <div className="field">
          <label htmlFor="invite-role">{t('settingsAdmin.users.role')}</label>
          <select id="invite-role" {...register('role')}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`settingsAdmin.users.role${r}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {preview ? <PreviewView preview={preview} /> : null}
      <div className="admin-actions">
        <button type="submit" className="button" disabled={isSubmitting}>
          {t('settingsAdmin.users.check')}
        </button>
        {preview?.valid ? (
          <button
            type="button"
            className="button button-primary"
            disabled={isSubmitting}
            onClick={() => void handleSubmit(invite)()}
          >
            {t('settingsAdmin.users.invite')}
          </button>
        ) : null}
      </div>
    </form>
  );
}

function RoleCell({ user }: { user: User }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>(user.role);
  const change = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PATCH('/v1/users/{userId}', {
          params: { path: { userId: user.id } },
          body: { role },
        }),
      ),
    onSuccess: async () => queryClient.invalidateQueries({ queryKey: keys.users.all }),
  });
  return (
    <div className="admin-form">
      <div className="admin-actions">
        <label className="visually-hidden" htmlFor={`role-${user.id}`}>
          {t('settingsAdmin.users.roleOf', { name: user.name })}
        </label>
        <select
          id={`role-${user.id}`}
          value={role}
          onChange={(e) => setRole(e.target.value as Role)}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`settingsAdmin.users.role${r}`)}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button-small"
          disabled={role === user.role || change.isPending}
          onClick={() => change.mutate()}
          aria-label={t('settingsAdmin.users.saveRoleOf', { name: user.name })}
        >
          {t('settingsAdmin.users.saveRole')}
        </button>
      </div>
      <ErrorAlert error={change.error} />
    </div>
  );
}

function RemoveUser({ user }: { user: User }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/v1/users/{userId}', { params: { path: { userId: user.id } } })),
    onSuccess: async () => {
      setOpen(false);
      await queryClient.invalidateQueries({ queryKey: keys.users.all });
    },
  });
  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={() => setOpen(true)}
        aria-label={t('settingsAdmin.users.removeUser', { name: user.name })}
      >
        {t('settingsAdmin.users.remove')}
      </button>
      <AdminDialog
        open={open}
        onOpenChange={(next) => {
          setOpen(next);
          if (!next) remove.reset();
        }}
        title={t('settingsAdmin.users.removeTitle', { name: user.name })}
        description={t('settingsAdmin.users.removeText')}
      >
        <ErrorAlert error={remove.error} />
        <button
          type="button"
          className="button button-primary"
          disabled={remove.isPending}
          onClick={() => remove.mutate()}
        >
          {t('settingsAdmin.users.removeConfirm')}
        </button>
      </AdminDialog>
    </>
  );
}

export function UsersTab() {
  const { t } = useTranslation();
  const session = useSession();
  const users = useQuery({
    queryKey: keys.users.list({ limit: 100 }),
    queryFn: async () => unwrap(await api.GET('/v1/users', { params: { query: { limit: 100 } } })),
  });
  return (
    <section className="admin-panel" aria-labelledby="users-title">
      <h2 id="users-title">{t('settingsAdmin.users.title')}</h2>
      <p className="muted">{t('settingsAdmin.users.lastAdminHint')}</p>
      <ErrorAlert error={users.error} />
      {users.data ? (
        <table className="admin-table">
          <caption className="visually-hidden">{t('settingsAdmin.users.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('settingsAdmin.users.name')}</th>
              <th scope="col">{t('common.email')}</th>
              <th scope="col">{t('settingsAdmin.users.status')}</th>
              <th scope="col">{t('settingsAdmin.users.lastLogin')}</th>
              <th scope="col">{t('settingsAdmin.users.role')}</th>
              <th scope="col">{t('settingsAdmin.users.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {users.data.data.map((user) => (
              <tr key={user.id}>
                <th scope="row">
                  {user.name}
                  {user.id === session?.user.id ? ` ${t('settingsAdmin.users.you')}` : ''}
                </th>
                <td>{user.email}</td>
                <td>{t(`settingsAdmin.users.status${user.status}`)}</td>
                <td>{formatDateTime(user.lastLoginAt)}</td>
                <td>
                  <RoleCell key={`${user.id}-${user.version}`} user={user} />
                </td>
                <td>
                  <RemoveUser user={user} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <InviteForm />
    </section>
  );
}
