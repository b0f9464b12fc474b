/**
 * Webhook endpoints: create one with its events (the signing secret is answered once), list an
 * endpoint's deliveries (polled while one is pending), replay a delivery, rotate the secret.
 * Which targets are allowed is the API's decision (422 `target_refused` on the URL field).
 */
import type { components } from '@kontor/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
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

type Endpoint = components['schemas']['WebhookEndpoint'];
type EventType = Endpoint['eventTypes'][number];

const EVENTS: EventType[] = [
  'document.finalized',
  'document.sent',
  'document.paid',
  'document.overdue',
  'document.cancelled',
  'document.viewed',
  'payment.created',
  'payment.updated',
  'import.finalized',
  'partner.created',
  'partner.updated',
  'contract.invoiced',
  'dunning.sent',
];

interface Values {
  url: string;
  description: string;
  eventTypes: EventType[];
}

function CreateEndpoint({
  onSecret,
}: {
  onSecret: (secret: { url: string; secret: string }) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const { register, handleSubmit, setError, reset, formState } = useForm<Values>({
    defaultValues: { url: '', description: '', eventTypes: [] },
  });
  const create = async (values: Values) => {
    setFormError(null);
    try {
      const result = await api.POST('/v1/webhook-endpoints', {
        body: {
          url: values.url,
          eventTypes: values.eventTypes,
          ...(values.description ? { description: values.description } : {}),
        },
      });
      if (result.error)
        return setFormError(
          applyProblem(result.error, setError, ['url', 'description', 'eventTypes']),
        );
      await queryClient.invalidateQueries({ queryKey: keys.webhookEndpoints.all });
      reset();
      onSecret({ url: result.data.url, secret: result.data.secret });
    } catch {
      setFormError(t('common.unexpected'));
    }
  };
  const eventsError = formState.errors.eventTypes?.message;
  return (
    <form
      className="admin-form"
      noValidate
      onSubmit={(e) => void handleSubmit(create)(e)}
      aria-labelledby="endpoint-new"
    >
      <h3 id="endpoint-new">{t('settingsAdmin.webhooks.newTitle')}</h3>
      <FormAlert message={formError} />
      <div className="admin-grid">
        <Field
          label={t('settingsAdmin.webhooks.url')}
          type="url"
          registration={register('url', { required: t('common.required') })}
          error={formState.errors.url}
        />
        <Field
          label={t('settingsAdmin.webhooks.description')}
          registration={register('description')}
          error={formState.errors.description}
        />
      </div>
      <fieldset
        className="admin-fieldset"
        aria-describedby={eventsError ? 'endpoint-events-error' : undefined}
      >
        <legend>{t('settingsAdmin.webhooks.events')}</legend>
        <div className="admin-grid">
          {EVENTS.map((event) => (
            <label className="admin-check" key={event}>
              <input type="checkbox" value={event} {...register('eventTypes')} />
              <code>{event}</code>
            </label>
          ))}
        </div>
        {eventsError ? (
          <p className="field-error" id="endpoint-events-error">
            {eventsError}
          </p>
        ) : null}
      </fieldset>
      <div className="admin-actions">
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
          {t('settingsAdmin.webhooks.create')}
        </button>
      </div>
    </form>
  );
}

function RotateSecret({
  endpoint,
  onSecret,
}: {
  endpoint: Endpoint;
  onSecret: (s: { url: string; secret: string }) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const rotate = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/v1/webhook-endpoints/{webhookEndpointId}/rotate-secret', {
          params: { path: { webhookEndpointId: endpoint.id } },
        }),
      ),
    onSuccess: async (data) => {
      setOpen(false);
      onSecret({ url: data.url, secret: data.secret });
      await queryClient.invalidateQueries({ queryKey: keys.webhookEndpoints.detail(endpoint.id) });
      await queryClient.invalidateQueries({ queryKey: keys.webhookEndpoints.lists() });
    },
  });
  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={() => setOpen(true)}
        aria-label={t('settingsAdmin.webhooks.rotateOf', { url: endpoint.url })}
      >
        {t('settingsAdmin.webhooks.rotate')}
      </button>
      <AdminDialog
        open={open}
        onOpenChange={setOpen}
        title={t('settingsAdmin.webhooks.rotateTitle')}
        description={t('settingsAdmin.webhooks.rotateText')}
      >
        <ErrorAlert error={rotate.error} />
        <button
          type="button"
          className="button button-primary"
          disabled={rotate.isPending}
          onClick={() => rotate.mutate()}
        >
          {t('settingsAdmin.webhooks.rotateConfirm')}
        </button>
      </AdminDialog>
    </>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const deliveries = useQuery({
    queryKey: keys.webhookEndpoints.deliveries(endpoint.id),
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/webhook-endpoints/{webhookEndpointId}/deliveries', {
          params: { path: { webhookEndpointId: endpoint.id }, query: { limit: 50 } },
        }),
      ),
    // Pending deliveries change on the server: look again until none is pending.
    refetchInterval: (query) =>
      query.state.data?.data.some((d) => d.status === 'PENDING') ? 2000 : false,
  });
  const replay = useMutation({
    mutationFn: async (deliveryId: string) =>
      unwrap(
        await api.POST('/v1/webhook-endpoints/{webhookEndpointId}/deliveries/{deliveryId}/replay', {
          params: { path: { webhookEndpointId: endpoint.id, deliveryId } },
        }),
      ),
    onSuccess: async () =>
      queryClient.invalidateQueries({ queryKey: keys.webhookEndpoints.deliveries(endpoint.id) }),
  });
  return (
    <section className="admin-panel" aria-labelledby="deliveries-title">
      <h3 id="deliveries-title">
        {t('settingsAdmin.webhooks.deliveriesOf', { url: endpoint.url })}
      </h3>
      <div className="admin-actions">
        <button
          type="button"
          className="button button-small"
          onClick={() => void deliveries.refetch()}
        >
          {t('settingsAdmin.webhooks.refresh')}
        </button>
      </div>
      <ErrorAlert error={deliveries.error ?? replay.error} />
      {deliveries.data?.data.length === 0 ? (
        <p>{t('settingsAdmin.webhooks.noDeliveries')}</p>
      ) : null}
      {deliveries.data && deliveries.data.data.length > 0 ? (
        <table className="admin-table">
          <caption className="visually-hidden">
            {t('settingsAdmin.webhooks.deliveriesOf', { url: endpoint.url })}
          </caption>
          <thead>
            <tr>
              <th scope="col">{t('settingsAdmin.webhooks.event')}</th>
              <th scope="col">{t('settingsAdmin.webhooks.status')}</th>
              <th scope="col" className="num">
                {t('settingsAdmin.webhooks.attempts')}
              </th>
              <th scope="col">{t('settingsAdmin.webhooks.lastAnswer')}</th>
              <th scope="col">{t('settingsAdmin.webhooks.when')}</th>
              <th scope="col">{t('settingsAdmin.users.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.data.map((delivery) => (
              <tr key={delivery.id}>
                <td>
                  <code>{delivery.eventType}</code>
                </td>
                <td>{t(`settingsAdmin.webhooks.status${delivery.status}`)}</td>
                <td className="num">{delivery.attempts}</td>
                <td>{delivery.lastStatusCode ?? delivery.lastError ?? '–'}</td>
                <td>{formatDateTime(delivery.lastAttemptAt ?? delivery.createdAt)}</td>
                <td>
                  <button
                    type="button"
                    className="button button-small"
                    disabled={replay.isPending || !endpoint.enabled}
                    onClick={() => replay.mutate(delivery.id)}
                    aria-label={t('settingsAdmin.webhooks.replayOf', {
                      event: delivery.eventType,
                      id: delivery.id,
                    })}
                  >
                    {t('settingsAdmin.webhooks.replay')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

export function WebhooksTab({ endpointId }: { endpointId: string | undefined }) {
  const { t } = useTranslation();
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const endpoints = useQuery({
    queryKey: keys.webhookEndpoints.list({ limit: 100 }),
    queryFn: async () =>
      unwrap(await api.GET('/v1/webhook-endpoints', { params: { query: { limit: 100 } } })),
  });
  const selected = endpoints.data?.data.find((e) => e.id === endpointId);
  return (
    <section className="admin-panel" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">{t('settingsAdmin.webhooks.title')}</h2>
      {secret ? (
        <section className="admin-panel" aria-labelledby="webhook-secret">
          <h3 id="webhook-secret">
            {t('settingsAdmin.webhooks.secretTitle', { url: secret.url })}
          </h3>
          <OneTimeSecret label={t('settingsAdmin.webhooks.secret')} secret={secret.secret} />
          <button type="button" className="button" onClick={() => setSecret(null)}>
            {t('admin.secretStored')}
          </button>
        </section>
      ) : null}
      <ErrorAlert error={endpoints.error} />
      {endpoints.data?.data.length === 0 ? <p>{t('settingsAdmin.webhooks.empty')}</p> : null}
      {endpoints.data && endpoints.data.data.length > 0 ? (
        <table className="admin-table">
          <caption className="visually-hidden">{t('settingsAdmin.webhooks.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('settingsAdmin.webhooks.url')}</th>
              <th scope="col">{t('settingsAdmin.webhooks.events')}</th>
              <th scope="col">{t('settingsAdmin.webhooks.state')}</th>
              <th scope="col">{t('settingsAdmin.users.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.data.data.map((endpoint) => (
              <tr key={endpoint.id}>
                <th scope="row">
                  {endpoint.url}
                  {endpoint.description ? (
                    <div className="muted">{endpoint.description}</div>
                  ) : null}
                </th>
                <td>{endpoint.eventTypes.join(', ')}</td>
                <td>
                  {endpoint.enabled
                    ? t('settingsAdmin.webhooks.enabled')
                    : t('settingsAdmin.webhooks.disabled')}
                  {endpoint.disabledReason ? (
                    <div className="muted">{endpoint.disabledReason}</div>
                  ) : null}
                  {endpoint.failureCount > 0 ? (
                    <div className="muted">
                      {t('settingsAdmin.webhooks.failures', { count: endpoint.failureCount })}
                    </div>
                  ) : null}
                </td>
                <td>
                  <div className="admin-actions">
                    <Link
                      to="/settings"
                      search={{ tab: 'webhooks', endpoint: endpoint.id }}
                      className="button button-small"
                      aria-label={t('settingsAdmin.webhooks.deliveriesOf', { url: endpoint.url })}
                    >
                      {t('settingsAdmin.webhooks.deliveries')}
                    </Link>
                    <RotateSecret endpoint={endpoint} onSecret={setSecret} />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {selected ? <Deliveries key={selected.id} endpoint={selected} /> : null}
      <CreateEndpoint onSecret={setSecret} />
    </section>
  );
}
