/**
 * Bank statement import, step two: every line with the API's suggestions and their reasons,
 * accepted or rejected one by one (or all suggested at once), then finalized. The import is
 * one record with one version: each decision carries the version last read and answers the
 * whole import, which replaces the cached one.
 */
import type { components } from '@kontor/client';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { FormAlert, FormNote } from '../../components/Form';
import { formatDate, formatDateTime, formatMoney } from '../../format';
import { AgreementMarks, ScoreBar, USE_SCORE, type Agreement } from './MatchVisual';
import '../../styles/forms.css';
import '../../styles/bank.css';

type Import = components['schemas']['BankStatementImport'];
type Line = Import['transactions'][number];
type Suggestion = Line['suggestions'][number];
type Decision = 'ACCEPTED' | 'REJECTED';

function useImport(importId: string) {
  return useQuery({
    queryKey: keys.bank.detail(importId),
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/bank-statement-imports/{importId}', {
        params: { path: { importId } },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

export type LineFilter = 'undecided' | 'accepted' | 'rejected' | 'duplicates';

function filterQuery(filter: LineFilter | undefined) {
  switch (filter) {
    case 'undecided':
      return { decision: 'UNDECIDED' as const };
    case 'accepted':
      return { decision: 'ACCEPTED' as const };
    case 'rejected':
      return { decision: 'REJECTED' as const };
    case 'duplicates':
      return { duplicate: true };
    case undefined:
      return {};
  }
}

/**
 * Lines from the API's transaction pages: a filtered view (the API filters, so it holds for
 * imports of any size) or, unfiltered, the pages after the inline first 1000 once asked for.
 */
function useLinePages(
  importId: string,
  filter: LineFilter | undefined,
  firstCursor: string | null,
  enabled: boolean,
) {
  return useInfiniteQuery({
    queryKey: [...keys.bank.transactions(importId), filter ?? 'all'],
    enabled,
    initialPageParam: filter === undefined ? firstCursor : null,
    getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor,
    queryFn: async ({ pageParam }) => {
      const { data, error } = await api.GET('/v1/bank-statement-imports/{importId}/transactions', {
        params: {
          path: { importId },
          query: { ...filterQuery(filter), cursor: pageParam ?? undefined, limit: 1000 },
        },
      });
      if (error) throw new ProblemError(error);
      // The route also speaks CSV; without an Accept header for it the answer is JSON.
      return typeof data === 'string' ? { data: [], nextCursor: null } : data;
    },
  });
}

function FilterNav({ importId, filter }: { importId: string; filter: LineFilter | undefined }) {
  const { t } = useTranslation();
  const items: { value: LineFilter | undefined; label: string }[] = [
    { value: undefined, label: t('bank.filter.all') },
    { value: 'undecided', label: t('bank.filter.undecided') },
    { value: 'accepted', label: t('bank.filter.accepted') },
    { value: 'rejected', label: t('bank.filter.rejected') },
    { value: 'duplicates', label: t('bank.filter.duplicates') },
  ];
  return (
    <nav className="filter-nav" aria-label={t('bank.filter.label')}>
      <ul>
        {items.map((item) => (
          <li key={item.value ?? 'all'}>
            <Link
              to="/bank/imports/$importId"
              params={{ importId }}
              search={item.value === undefined ? {} : { filter: item.value }}
              // Exact: "all" (no filter) would otherwise count as active under every filter.
              activeOptions={{ exact: true }}
              aria-current={item.value === filter ? 'page' : undefined}
              className={item.value === filter ? 'filter-link filter-link-current' : 'filter-link'}
            >
              {item.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function useInvoice(documentId: string | undefined) {
  return useQuery({
    queryKey: keys.invoices.detail(documentId ?? ''),
    enabled: documentId !== undefined,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/documents/{documentId}', {
        params: { path: { documentId: documentId ?? '' } },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

/** A line the API suggests booking: undecided, no duplicate, a suggestion finalize would use. */
export function isSuggested(line: Line): boolean {
  return (
    line.decision === null &&
    line.duplicateOf === null &&
    line.suggestions.some((suggestion) => suggestion.score >= USE_SCORE)
  );
}

function folded(text: string | null | undefined): string {
  return (text ?? '').toLocaleLowerCase().replace(/\s+/g, ' ').trim();
}

function SuggestionType({ type }: { type: Suggestion['type'] }) {
  const { t } = useTranslation();
  switch (type) {
    case 'INVOICE':
      return <>{t('bank.type.invoice')}</>;
    case 'PAYMENT':
      return <>{t('bank.type.payment')}</>;
    case 'PARTNER':
      return <>{t('bank.type.partner')}</>;
    case 'BUDGET_CATEGORY':
      return <>{t('bank.type.category')}</>;
    case 'SEPA_RETURN':
      return <>{t('sepaRoundTrip.type.return')}</>;
    case 'SEPA_BATCH':
      return <>{t('sepaRoundTrip.type.batch')}</>;
  }
}

/** The suggested invoice beside the line: its number, customer, amount and due date. */
function SuggestedInvoice({ line, suggestion }: { line: Line; suggestion: Suggestion }) {
  const { t } = useTranslation();
  const invoice = useInvoice(suggestion.id).data;
  if (!invoice) return null;
  const partner = line.suggestions.find((s) => s.type === 'PARTNER');
  const agreement: Agreement = {
    amount: invoice.grossTotal === line.amount && invoice.currency === line.currency,
    name:
      (partner !== undefined && partner.id === invoice.partnerId) ||
      (folded(line.counterpartyName) !== '' &&
        folded(line.counterpartyName) === folded(invoice.partnerName)),
    reference:
      invoice.documentNumber !== null &&
      folded(line.purpose).includes(folded(invoice.documentNumber)),
  };
  return (
    <div className="suggested-invoice">
      <dl className="facts">
        <dt>{t('bank.review.invoice')}</dt>
        <dd>{invoice.documentNumber}</dd>
        <dt>{t('bank.review.customer')}</dt>
        <dd>{invoice.partnerName ?? t('bank.none')}</dd>
        <dt>{t('bank.review.invoiceAmount')}</dt>
        <dd>{formatMoney(invoice.grossTotal, invoice.currency)}</dd>
        {invoice.dueDate ? (
          <>
            <dt>{t('bank.review.dueDate')}</dt>
            <dd>{formatDate(invoice.dueDate)}</dd>
          </>
        ) : null}
      </dl>
      <AgreementMarks agreement={agreement} />
    </div>
  );
}

function Suggestions({ line }: { line: Line }) {
  const { t } = useTranslation();
  const [best, ...others] = line.suggestions;
  if (best === undefined) return <p className="muted">{t('bank.review.noSuggestion')}</p>;
  return (
    <div className="suggestions">
      <h4>
        {t('bank.review.suggestion')}: <SuggestionType type={best.type} /> {best.label}
      </h4>
      <ScoreBar score={best.score} />
      {best.type === 'INVOICE' ? <SuggestedInvoice line={line} suggestion={best} /> : null}
      <p className="reasons-title">{t('bank.review.reasons')}</p>
      <ul className="reasons">
        {best.reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      {others.length > 0 ? (
        <details>
          <summary>{t('bank.review.otherSuggestions', { n: others.length })}</summary>
          <ul className="other-suggestions">
            {others.map((s) => (
              <li key={`${s.type}-${s.id}`}>
                <SuggestionType type={s.type} /> {s.label} —{' '}
                {t('bank.review.score', { score: s.score })}: {s.reasons.join('; ')}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

function DecisionBadge({ decision }: { decision: Line['decision'] }) {
  const { t } = useTranslation();
  if (decision === 'ACCEPTED')
    return <span className="badge badge-ok">{t('bank.decision.accepted')}</span>;
  if (decision === 'REJECTED')
    return <span className="badge badge-off">{t('bank.decision.rejected')}</span>;
  return <span className="badge">{t('bank.decision.undecided')}</span>;
}

interface LineProps {
  line: Line;
  editable: boolean;
  busy: boolean;
  onDecide: (index: number, decision: Decision) => void;
}

function LineCard({ line, editable, busy, onDecide }: LineProps) {
  const { t } = useTranslation();
  const number = line.index + 1;
  const name = line.counterpartyName ?? t('bank.none');
  const titleId = `line-${line.index}-title`;
  return (
    <li className="line" aria-labelledby={titleId}>
      <div className="line-head">
        <h3 id={titleId}>{t('bank.review.lineTitle', { number, name })}</h3>
        <span className={line.amount >= 0 ? 'amount amount-in' : 'amount amount-out'}>
          {formatMoney(line.amount, line.currency)}
        </span>
        <DecisionBadge decision={line.decision} />
      </div>
      <div className="line-body">
        <dl className="facts">
          <dt>{t('bank.review.bookingDate')}</dt>
          <dd>{formatDate(line.bookingDate)}</dd>
          <dt>{t('bank.review.counterparty')}</dt>
          <dd>
            {name}
            {line.counterpartyIban ? (
              <span className="muted"> · {line.counterpartyIban}</span>
            ) : null}
          </dd>
          <dt>{t('bank.review.purpose')}</dt>
          <dd>{line.purpose || t('bank.none')}</dd>
        </dl>
        {line.duplicateOf ? <p className="duplicate">{t('bank.review.duplicate')}</p> : null}
        <Suggestions line={line} />
      </div>
      {editable ? (
        <div className="actions">
          <button
            type="button"
            className="button button-small"
            disabled={busy || line.decision === 'ACCEPTED'}
            onClick={() => onDecide(line.index, 'ACCEPTED')}
          >
            {t('bank.review.accept')}
            <span className="visually-hidden"> {t('bank.review.lineRef', { number })}</span>
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={busy || line.decision === 'REJECTED'}
            onClick={() => onDecide(line.index, 'REJECTED')}
          >
            {t('bank.review.reject')}
            <span className="visually-hidden"> {t('bank.review.lineRef', { number })}</span>
          </button>
        </div>
      ) : null}
    </li>
  );
}

function Summary({ data }: { data: Import }) {
  const { t } = useTranslation();
  return (
    <section className="panel" aria-labelledby="import-summary-title">
      <h2 id="import-summary-title">{data.fileName}</h2>
      <dl className="facts facts-inline">
        <dt>{t('bank.review.format')}</dt>
        <dd>{data.format}</dd>
        <dt>{t('bank.review.period')}</dt>
        <dd>
          {formatDate(data.periodFrom)} – {formatDate(data.periodTo)}
        </dd>
        <dt>{t('bank.review.status')}</dt>
        <dd>
          {data.status === 'ACTIVE'
            ? t('bank.status.active')
            : data.status === 'FINALIZED'
              ? t('bank.status.finalized')
              : t('bank.status.discarded')}
        </dd>
        <dt>{t('bank.review.balance')}</dt>
        <dd>
          {data.balanceOk === null
            ? t('bank.review.balanceNone')
            : data.balanceOk
              ? t('bank.review.balanceOk')
              : t('bank.review.balanceBroken')}
        </dd>
        <dt>{t('bank.review.lines')}</dt>
        <dd>
          {t('bank.counts', {
            total: data.transactionCount,
            undecided: data.undecidedCount,
            accepted: data.acceptedCount,
            rejected: data.rejectedCount,
          })}
          {data.duplicateCount > 0
            ? ` · ${t('bank.review.duplicates', { n: data.duplicateCount })}`
            : ''}
          {data.outsidePeriodCount > 0
            ? ` · ${t('bank.review.outsidePeriod', { n: data.outsidePeriodCount })}`
            : ''}
        </dd>
      </dl>
      {data.problems.length > 0 ? (
        <details>
          <summary>{t('bank.review.problems', { n: data.problems.length })}</summary>
          <ul>
            {data.problems.map((problem, i) => (
              <li key={i}>{problem.message}</li>
            ))}
          </ul>
        </details>
      ) : null}
      {data.result && data.finalizedAt ? (
        <FormNote
          message={t('bank.review.finalized', {
            at: formatDateTime(data.finalizedAt),
            created: data.result.paymentsCreated,
            marked: data.result.paymentsMarked,
            budget: data.result.budgetEntries,
          })}
        />
      ) : null}
    </section>
  );
}

export function ImportReviewPage() {
  const { t } = useTranslation();
  const { importId } = useParams({ from: '/app/bank/imports/$importId' });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const imported = useImport(importId);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const { filter } = useSearch({ from: '/app/bank/imports/$importId' });
  const [showMore, setShowMore] = useState(false);
  const data = imported.data;
  const firstCursor = data?.transactionsNextCursor ?? null;
  const pages = useLinePages(
    importId,
    filter,
    firstCursor,
    filter !== undefined || (showMore && firstCursor !== null),
  );

  const current = () => queryClient.getQueryData<Import>(keys.bank.detail(importId));
  const store = (next: Import) => {
    queryClient.setQueryData(keys.bank.detail(importId), next);
    // Pages of lines (filtered or beyond the first 1000) hold decisions too.
    void queryClient.invalidateQueries({ queryKey: keys.bank.transactions(importId) });
  };

  /**
   * One decision with the version last read. A stale version (someone else decided meanwhile)
   * reloads the import and applies the user's choice once more on the fresh version.
   */
  const decide = async (index: number, decision: Decision): Promise<boolean> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const version = current()?.version ?? 0;
      const { data: next, error } = await api.PATCH(
        '/v1/bank-statement-imports/{importId}/transactions/{index}',
        { params: { path: { importId, index } }, body: { version, decision } },
      );
      if (next) {
        store(next);
        return true;
      }
      if (error.code === 'version_conflict' && attempt === 0) {
        await imported.refetch();
        continue;
      }
      setMessage(error.detail ?? error.title);
      return false;
    }
    return false;
  };

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
    } catch {
      setMessage(t('common.unexpected'));
    } finally {
      setBusy(false);
      setProgress(null);
      // The active import's counts changed with the decisions.
      await queryClient.invalidateQueries({ queryKey: keys.bank.active() });
    }
  };

  const decideOne = (index: number, decision: Decision) =>
    void run(async () => {
      await decide(index, decision);
    });

  const acceptAll = () =>
    void run(async () => {
      const lines = (current()?.transactions ?? []).filter(isSuggested);
      let done = 0;
      for (const line of lines) {
        setProgress(t('bank.review.acceptProgress', { done, total: lines.length }));
        if (!(await decide(line.index, 'ACCEPTED'))) return;
        done++;
      }
    });

  const finalize = () =>
    void run(async () => {
      const { data: next, error } = await api.POST(
        '/v1/bank-statement-imports/{importId}/finalize',
        {
          params: { path: { importId } },
          body: { version: current()?.version ?? 0 },
        },
      );
      if (error) {
        if (error.code === 'version_conflict') await imported.refetch();
        setMessage(error.detail ?? error.title);
        return;
      }
      store(next);
      // Payments were booked: invoices' payment status and the cockpit's figures changed.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.invoices.all }),
        queryClient.invalidateQueries({ queryKey: keys.dashboard.all }),
      ]);
    });

  const discard = () =>
    void run(async () => {
      const { error } = await api.DELETE('/v1/bank-statement-imports/{importId}', {
        params: { path: { importId } },
      });
      if (error) {
        setMessage(error.detail ?? error.title);
        return;
      }
      await queryClient.invalidateQueries({ queryKey: keys.bank.all });
      await navigate({ to: '/bank' });
    });

  if (imported.isPending) return <p role="status">{t('app.loading')}</p>;
  if (imported.isError || !data) {
    return (
      <section className="screen" aria-labelledby="screen-title">
        <h1 id="screen-title">{t('bank.review.title')}</h1>
        <div role="alert" className="form-alert">
          {imported.error?.message ?? t('common.unexpected')}
        </div>
        <Link to="/bank">{t('bank.review.back')}</Link>
      </section>
    );
  }

  const editable = data.status === 'ACTIVE';
  const suggested = data.transactions.filter(isSuggested).length;
  const paged = pages.data?.pages.flatMap((page) => page.data) ?? [];
  const lines = filter === undefined ? [...data.transactions, ...(showMore ? paged : [])] : paged;
  const moreToLoad =
    filter === undefined
      ? firstCursor !== null && (!showMore || pages.hasNextPage)
      : pages.hasNextPage;
  return (
    <section className="screen" aria-labelledby="screen-title">
      <p>
        <Link to="/bank">{t('bank.review.back')}</Link>
      </p>
      <h1 id="screen-title">{t('bank.review.title')}</h1>
      <Summary data={data} />
      <FormAlert message={message} />
      {editable ? (
        <div className="toolbar" aria-label={t('bank.review.toolbar')} role="group">
          <button
            type="button"
            className="button"
            disabled={busy || suggested === 0}
            onClick={acceptAll}
          >
            {t('bank.review.acceptAll', { n: suggested })}
          </button>
          <button
            type="button"
            className="button button-primary"
            // The API finalizes only when every line is decided; its count says so.
            disabled={busy || data.undecidedCount > 0}
            onClick={finalize}
          >
            {t('bank.review.finalize')}
          </button>
          {confirmDiscard ? (
            <span className="confirm" role="group" aria-label={t('bank.review.discardConfirm')}>
              <span>{t('bank.review.discardConfirm')}</span>
              <button
                type="button"
                className="button button-danger"
                disabled={busy}
                onClick={discard}
              >
                {t('bank.review.discardYes')}
              </button>
              <button type="button" className="button" onClick={() => setConfirmDiscard(false)}>
                {t('bank.review.discardNo')}
              </button>
            </span>
          ) : (
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => setConfirmDiscard(true)}
            >
              {t('bank.review.discard')}
            </button>
          )}
          {data.undecidedCount > 0 ? (
            <span className="muted">
              {t('bank.review.undecidedNote', { n: data.undecidedCount })}
            </span>
          ) : null}
        </div>
      ) : null}
      <p role="status" className="muted">
        {progress ?? ''}
      </p>
      <FilterNav importId={importId} filter={filter} />
      {filter !== undefined && pages.isPending ? <p>{t('app.loading')}</p> : null}
      {filter !== undefined && pages.isSuccess && lines.length === 0 ? (
        <p className="muted">{t('bank.filter.empty')}</p>
      ) : null}
      <ol className="lines" aria-label={t('bank.review.linesLabel')}>
        {lines.map((line) => (
          <LineCard
            key={line.index}
            line={line}
            editable={editable}
            busy={busy}
            onDecide={decideOne}
          />
        ))}
      </ol>
      {moreToLoad ? (
        <button
          type="button"
          className="button"
          disabled={pages.isFetchingNextPage}
          onClick={() => {
            if (filter === undefined && !showMore) setShowMore(true);
            else void pages.fetchNextPage();
          }}
        >
          {t('bank.review.more')}
        </button>
      ) : null}
    </section>
  );
}
