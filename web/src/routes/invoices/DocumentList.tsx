/**
 * What the lists of documents share (invoices; quotes and order confirmations): the tab bar,
 * the search box that searches on the server as the user pauses typing, the failure with
 * Retry, the table of one page of rows and the pager. Each list keeps its own tabs' filters
 * and badge.
 */
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormats } from '../../api/account';
import type { Invoice } from './shared';

/** The lists with tabs, search and pages in their URL (`status`, `q`, `cursor`). */
type ListRoute = '/invoices' | '/quotes';

/**
 * The tab bar: "all" and each tab, keeping the search. The router marks the active link
 * (aria-current="page"): only the current tab, whatever page or search it shows, is active.
 */
export function DocumentTabs<Tab extends string>({
  list,
  tabs,
  current,
  q,
  label,
  name,
}: {
  list: ListRoute;
  tabs: readonly Tab[];
  current: Tab | undefined;
  q: string | undefined;
  label: string;
  name: (tab: Tab | undefined) => string;
}) {
  const all: (Tab | undefined)[] = [undefined, ...tabs];
  return (
    <nav aria-label={label} className="invoice-tabs">
      <ul>
        {all.map((tab) => (
          <li key={tab ?? 'all'}>
            <Link
              to={list}
              search={{ ...(tab === undefined ? {} : { status: tab }), ...(q ? { q } : {}) }}
              className="invoice-tab"
              activeOptions={
                tab === current ? { includeSearch: false } : { exact: true, includeSearch: true }
              }
            >
              {name(tab)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * Previous and next page. The cursors of the pages before this one are kept to go back; a
 * shared link starts without them. `search` is the list's search for a page's cursor.
 */
export function DocumentPager<Search extends object>({
  list,
  cursor,
  nextCursor,
  search,
}: {
  list: ListRoute;
  cursor: string | undefined;
  nextCursor: string | null | undefined;
  search: (cursor: string | undefined) => Search;
}) {
  const { t } = useTranslation();
  const [previous, setPrevious] = useState<(string | undefined)[]>([]);
  return (
    <nav className="pager" aria-label={t('invoices.list.paging')}>
      {cursor !== undefined ? (
        <Link
          to={list}
          search={search(previous.at(-1))}
          className="button"
          onClick={() => setPrevious((stack) => stack.slice(0, -1))}
        >
          {t('invoices.list.previous')}
        </Link>
      ) : null}
      {nextCursor ? (
        <Link
          to={list}
          search={search(nextCursor)}
          className="button"
          onClick={() => setPrevious((stack) => [...stack, cursor])}
        >
          {t('invoices.list.next')}
        </Link>
      ) : null}
    </nav>
  );
}

/** The search field; `onSearch` runs 300 ms after the last change (a new search starts at page 1). */
export function ListSearchBox({
  label,
  initial,
  onSearch,
}: {
  label: string;
  initial: string;
  onSearch: (q: string) => void;
}) {
  const id = useId();
  const [text, setText] = useState(initial);
  useEffect(() => {
    if (text.trim() === initial) return;
    const timer = setTimeout(() => onSearch(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text, initial, onSearch]);
  return (
    <div className="field invoice-search">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" value={text} onChange={(event) => setText(event.target.value)} />
    </div>
  );
}

/** The list's failure, with Retry. */
export function ListAlert({ list }: { list: UseQueryResult<unknown> }) {
  const { t } = useTranslation();
  if (!list.isError) return null;
  return (
    <div role="alert" className="form-alert">
      {list.error.message}
      <button type="button" className="button button-small" onClick={() => void list.refetch()}>
        {t('errors.retry')}
      </button>
    </div>
  );
}

interface DocumentTableProps {
  rows: Invoice[] | undefined;
  caption: string;
  busy: boolean;
  pending: boolean;
  empty: string;
  /** The second date column: an invoice's due date, a quote's validity. */
  secondDate: { label: string; value: (document: Invoice) => string | null };
  dateLabel: string;
  badge: (document: Invoice) => ReactNode;
}

/** One page of documents: number (a link to its page), customer, dates, gross, state. */
export function DocumentTable(props: DocumentTableProps) {
  const { t } = useTranslation();
  const format = useFormats();
  return (
    <div className="table-wrap">
      <table className="data-table" aria-busy={props.busy}>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t('invoices.columns.number')}</th>
            <th scope="col">{t('invoices.columns.customer')}</th>
            <th scope="col">{props.dateLabel}</th>
            <th scope="col">{props.secondDate.label}</th>
            <th scope="col" className="numeric">
              {t('invoices.columns.gross')}
            </th>
            <th scope="col">{t('invoices.columns.state')}</th>
          </tr>
        </thead>
        <tbody>
          {props.rows?.map((document) => (
            <tr key={document.id}>
              <th scope="row">
                {document.documentType === 'INVOICE' ? (
                  <Link to="/invoices/$documentId" params={{ documentId: document.id }}>
                    {document.documentNumber ?? t('invoices.draftTitle')}
                  </Link>
                ) : (
                  <Link to="/quotes/$documentId" params={{ documentId: document.id }}>
                    {document.documentNumber ?? t('invoices.draftTitle')}
                  </Link>
                )}
              </th>
              <td>{document.partnerName}</td>
              <td>{format.date(document.creationDate)}</td>
              <td>{format.date(props.secondDate.value(document))}</td>
              <td className="numeric">{format.money(document.grossTotal, document.currency)}</td>
              <td>{props.badge(document)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.rows?.length === 0 ? <p className="muted">{props.empty}</p> : null}
      {props.pending ? <p role="status">{t('app.loading')}</p> : null}
    </div>
  );
}
