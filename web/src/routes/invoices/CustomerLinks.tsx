/**
 * A FINAL invoice's or quote's customer links (`/v1/documents/{id}/customer-links`): create one
 * (its URL is in that answer only, so it is shown once, with a copy button and its expiry),
 * the links with their views, and revoke one. The API decides what may be linked.
 */
import type { components } from '@kontor/client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { queryClient } from '../../api/query';
import { FormAlert } from '../../components/Form';
import { formatDateTime } from '../../format';
import type { Invoice } from './shared';

type CreatedLink = components['schemas']['CreateDocumentCustomerLinkResponse'];

function NewLink({ link }: { link: CreatedLink }) {
  const { t } = useTranslation();
  const id = useId();
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link.url);
      setCopied(true);
    } catch {
      // No clipboard (plain http in a LAN): the field is selected for Ctrl+C instead.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied(false);
    }
  };
  return (
    <div className="customer-link-new" role="status">
      <p>{t('quotes.links.createdOnce')}</p>
      <div className="field">
        <label htmlFor={id}>{t('quotes.links.url')}</label>
        <input id={id} readOnly value={link.url} onFocus={(event) => event.target.select()} />
      </div>
      <p>{t('quotes.links.expires', { date: formatDateTime(link.expiresAt) })}</p>
      <button type="button" className="button" onClick={() => void copy()}>
        {t('quotes.links.copy')}
      </button>
      {copied === true ? <span> {t('quotes.links.copied')}</span> : null}
      {copied === false ? <span> {t('quotes.links.copyByHand')}</span> : null}
    </div>
  );
}

export function CustomerLinks({ document }: { document: Invoice }) {
  const { t } = useTranslation();
  const [created, setCreated] = useState<CreatedLink | null>(null);
  const [error, setError] = useState<string | null>(null);
  const documentId = document.id;
  const links = useQuery({
    queryKey: keys.invoices.customerLinks(documentId),
    queryFn: async () => {
      const { data, error: problem } = await api.GET('/v1/documents/{documentId}/customer-links', {
        params: { path: { documentId } },
      });
      if (problem) throw new ProblemError(problem);
      return data;
    },
  });
  // A link changes only the document's links (the document itself is unchanged).
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: keys.invoices.customerLinks(documentId) });
  const create = useMutation({
    mutationFn: async () => {
      const { data, error: problem } = await api.POST('/v1/documents/{documentId}/customer-links', {
        params: { path: { documentId } },
        body: {},
      });
      if (problem) throw new ProblemError(problem);
      return data;
    },
    onMutate: () => setError(null),
    onSuccess: (link) => {
      setCreated(link);
      void refresh();
    },
    onError: (failure) => setError(failure.message),
  });
  const revoke = useMutation({
    mutationFn: async (linkId: string) => {
      const { data, error: problem } = await api.DELETE(
        '/v1/documents/{documentId}/customer-links/{linkId}',
        { params: { path: { documentId, linkId } } },
      );
      if (problem) throw new ProblemError(problem);
      return data;
    },
    onMutate: () => setError(null),
    onSuccess: (link) => {
      if (created?.id === link.id) setCreated(null);
      void refresh();
    },
    onError: (failure) => setError(failure.message),
  });

  const rows = links.data?.data ?? [];
  return (
    <section className="customer-links" aria-labelledby="links-title">
      <h2 id="links-title">{t('quotes.links.title')}</h2>
      <p className="muted">{t('quotes.links.text')}</p>
      <FormAlert message={error} />
      <button
        type="button"
        className="button"
        disabled={create.isPending}
        onClick={() => create.mutate()}
      >
        {t('quotes.links.create')}
      </button>
      {created !== null ? <NewLink link={created} /> : null}
      {links.isError ? <p role="alert">{links.error.message}</p> : null}
      {rows.length > 0 ? (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">{t('quotes.links.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('quotes.links.createdAt')}</th>
                <th scope="col">{t('quotes.links.expiresAt')}</th>
                <th scope="col">{t('quotes.links.status')}</th>
                <th scope="col">{t('quotes.links.firstViewed')}</th>
                <th scope="col" className="numeric">
                  {t('quotes.links.views')}
                </th>
                <th scope="col">
                  <span className="visually-hidden">{t('quotes.links.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((link) => (
                <tr key={link.id}>
                  <th scope="row">{formatDateTime(link.createdAt)}</th>
                  <td>{formatDateTime(link.expiresAt)}</td>
                  <td>{t(`quotes.links.state.${link.status}`)}</td>
                  <td>{link.firstViewedAt ? formatDateTime(link.firstViewedAt) : '–'}</td>
                  <td className="numeric">{link.viewCount}</td>
                  <td>
                    {link.status === 'ACTIVE' ? (
                      <button
                        type="button"
                        className="button button-small button-danger"
                        disabled={revoke.isPending}
                        onClick={() => revoke.mutate(link.id)}
                      >
                        {t('quotes.links.revoke', { date: formatDateTime(link.createdAt) })}
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : links.data ? (
        <p className="muted">{t('quotes.links.none')}</p>
      ) : null}
    </section>
  );
}
