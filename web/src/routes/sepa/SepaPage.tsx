/**
 * `/bank/sepa`: direct debits (pain.008) and transfers (pain.001). Each part proposes what the
 * API's dry run says over the open invoices — what can be collected or paid, with amount,
 * mandate, sequence type and date, and what cannot, with the API's reason — lets the owner
 * untick invoices and ask for a date, creates the run of the chosen ones, and lists the runs
 * made, page by page, with their file to download for the bank.
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useFormats } from '../../api/account';
import { keys } from '../../api/keys';
import { ProblemError, splitProblem } from '../../api/problems';
import { Pager, useCursorPages } from '../../components/AdminKit';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { CheckboxField } from '../../components/FormFields';
import { LoadingOrError } from '../../components/LoadingOrError';
import {
  downloadRunFile,
  listRuns,
  MAX_INVOICES,
  openInvoices,
  postRun,
  type Invoice,
  type Run,
  type RunItem,
  type RunKind,
} from './runs';
import '../../styles/forms.css';
import '../../styles/records.css';
import '../../styles/bank.css';
import '../../styles/sepa.css';

interface Values {
  date: string;
  useSkonto: boolean;
}

const DATE_FIELD = { collections: 'collectionDate', transfers: 'executionDate' } as const;

function useProposal(kind: RunKind, date: string, useSkonto: boolean) {
  return useQuery({
    queryKey: keys.sepa.proposal(kind, { date, useSkonto }),
    queryFn: async () => {
      const { invoices, more } = await openInvoices(kind);
      const run =
        invoices.length === 0
          ? null
          : await postRun(kind, {
              invoiceIds: invoices.map((invoice) => invoice.id),
              date,
              useSkonto,
              dryRun: true,
            });
      return { invoices: new Map(invoices.map((invoice) => [invoice.id, invoice])), more, run };
    },
  });
}

function useRuns(kind: RunKind, cursor: string | undefined) {
  return useQuery({
    queryKey: keys.sepa.runsPage(kind, cursor ?? null),
    placeholderData: keepPreviousData,
    queryFn: () => listRuns(kind, cursor),
  });
}

type RunPages = ReturnType<typeof useCursorPages>;

function ItemRow({
  kind,
  item,
  invoice,
  chosen,
  onChoose,
}: {
  kind: RunKind;
  item: RunItem;
  invoice: Invoice | undefined;
  chosen: boolean;
  onChoose: (chosen: boolean) => void;
}) {
  const { t } = useTranslation();
  const formats = useFormats();
  const number = item.documentNumber ?? item.invoiceId;
  const id = `sepa-${kind}-${item.invoiceId}`;
  return (
    <tr>
      <td className="choose">
        <input
          id={id}
          type="checkbox"
          checked={chosen}
          onChange={(event) => onChoose(event.target.checked)}
        />
        <label htmlFor={id} className="visually-hidden">
          {t(`sepa.${kind}.chooseOne`, { invoice: number })}
        </label>
      </td>
      <th scope="row">{number}</th>
      <td>{invoice?.partnerName ?? ''}</td>
      <td className="num">
        {formats.money(item.amount, 'EUR')}
        {item.skonto ? (
          <>
            <br />
            <span className="muted">{t('sepa.transfers.withSkonto')}</span>
          </>
        ) : null}
      </td>
      {kind === 'collections' ? (
        <>
          <td>{item.mandateReference}</td>
          <td>{item.sequenceType}</td>
        </>
      ) : (
        <td>{item.iban}</td>
      )}
      <td>{formats.date(item.executionDate)}</td>
    </tr>
  );
}

function ProposalTable({
  kind,
  run,
  invoices,
  unchosen,
  onChoose,
}: {
  kind: RunKind;
  run: Run;
  invoices: Map<string, Invoice>;
  unchosen: ReadonlySet<string>;
  onChoose: (invoiceIds: readonly string[], chosen: boolean) => void;
}) {
  const { t } = useTranslation();
  const formats = useFormats();
  if (run.items.length === 0) return <p>{t(`sepa.${kind}.nothing`)}</p>;
  const ids = run.items.map((item) => item.invoiceId);
  const count = ids.filter((id) => !unchosen.has(id)).length;
  const all = count === ids.length;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption>
          {t(`sepa.${kind}.proposalCaption`, {
            count: run.items.length,
            total: formats.money(run.total, 'EUR'),
          })}
        </caption>
        <thead>
          <tr>
            <th scope="col">
              <label className="choose-all">
                <input
                  type="checkbox"
                  checked={all}
                  ref={(input) => {
                    if (input) input.indeterminate = count > 0 && !all;
                  }}
                  onChange={() => onChoose(ids, !all)}
                />
                <span aria-hidden="true">{t('sepa.chooseAllShort')}</span>
                <span className="visually-hidden">{t(`sepa.${kind}.chooseAll`)}</span>
              </label>
            </th>
            <th scope="col">{t('sepa.col.invoice')}</th>
            <th scope="col">{t(`sepa.${kind}.partner`)}</th>
            <th scope="col" className="num">
              {t('sepa.col.amount')}
            </th>
            {kind === 'collections' ? (
              <>
                <th scope="col">{t('sepa.col.mandate')}</th>
                <th scope="col">{t('sepa.col.sequenceType')}</th>
              </>
            ) : (
              <th scope="col">{t('sepa.col.iban')}</th>
            )}
            <th scope="col">{t(`sepa.${kind}.date`)}</th>
          </tr>
        </thead>
        <tbody>
          {run.items.map((item) => (
            <ItemRow
              key={item.invoiceId}
              kind={kind}
              item={item}
              invoice={invoices.get(item.invoiceId)}
              chosen={!unchosen.has(item.invoiceId)}
              onChoose={(chosen) => onChoose([item.invoiceId], chosen)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Refused({
  kind,
  run,
  invoices,
}: {
  kind: RunKind;
  run: Run;
  invoices: Map<string, Invoice>;
}) {
  const { t } = useTranslation();
  if (run.refused.length === 0) return null;
  return (
    <details className="sepa-refused">
      <summary>{t(`sepa.${kind}.refusedSummary`, { count: run.refused.length })}</summary>
      <table className="data-table">
        <caption className="visually-hidden">{t(`sepa.${kind}.refusedCaption`)}</caption>
        <thead>
          <tr>
            <th scope="col">{t('sepa.col.invoice')}</th>
            <th scope="col">{t(`sepa.${kind}.partner`)}</th>
            <th scope="col">{t('sepa.col.reason')}</th>
          </tr>
        </thead>
        <tbody>
          {run.refused.map((refusal) => {
            const invoice = invoices.get(refusal.invoiceId);
            return (
              <tr key={refusal.invoiceId}>
                <th scope="row">{invoice?.documentNumber ?? refusal.invoiceId}</th>
                <td>{invoice?.partnerName ?? ''}</td>
                <td>{refusal.message}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </details>
  );
}

function RunList({
  kind,
  pages,
  onError,
}: {
  kind: RunKind;
  pages: RunPages;
  onError: (message: string) => void;
}) {
  const { t } = useTranslation();
  const formats = useFormats();
  const runs = useRuns(kind, pages.cursor);
  if (runs.data === undefined) {
    return <LoadingOrError error={runs.error} onRetry={() => void runs.refetch()} />;
  }
  if (runs.data.data.length === 0 && !pages.hasPrevious)
    return <p className="muted">{t(`sepa.${kind}.noRuns`)}</p>;
  const download = (runId: string) =>
    void downloadRunFile(kind, runId).catch((error: unknown) =>
      onError(error instanceof ProblemError ? error.message : t('common.unexpected')),
    );
  return (
    <>
      <table className="data-table" aria-busy={runs.isFetching}>
        <caption>{t(`sepa.${kind}.runsCaption`)}</caption>
        <thead>
          <tr>
            <th scope="col">{t('sepa.col.created')}</th>
            <th scope="col">{t(`sepa.${kind}.date`)}</th>
            <th scope="col" className="num">
              {t('sepa.col.count')}
            </th>
            <th scope="col" className="num">
              {t('sepa.col.total')}
            </th>
            <th scope="col">{t('sepa.col.file')}</th>
          </tr>
        </thead>
        <tbody>
          {runs.data.data.map((run) => {
            const dates = [...new Set(run.items.map((item) => item.executionDate))].sort();
            const created = run.createdAt === null ? '' : formats.date(run.createdAt.slice(0, 10));
            return (
              <tr key={run.id}>
                <th scope="row">{created}</th>
                <td>{dates.map((date) => formats.date(date)).join(', ')}</td>
                <td className="num">{run.items.length}</td>
                <td className="num">{formats.money(run.total, run.currency)}</td>
                <td>
                  {run.id === null ? null : (
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => download(run.id ?? '')}
                    >
                      <span aria-hidden="true">{t(`sepa.${kind}.download`)}</span>
                      <span className="visually-hidden">
                        {t(`sepa.${kind}.downloadOf`, { id: run.messageId ?? run.id })}
                      </span>
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Pager
        label={t(`sepa.${kind}.runsPages`)}
        hasPrevious={pages.hasPrevious}
        nextCursor={runs.data.nextCursor}
        onPrevious={pages.previous}
        onNext={pages.next}
      />
    </>
  );
}

function RunSection({ kind }: { kind: RunKind }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const queryClient = useQueryClient();
  const { register, control } = useForm<Values>({ defaultValues: { date: '', useSkonto: true } });
  const date = useWatch({ control, name: 'date' });
  const useSkonto = useWatch({ control, name: 'useSkonto' });
  const proposal = useProposal(kind, date, kind === 'transfers' && useSkonto);
  // The invoices taken out of the run; every other proposed one is chosen, new ones too.
  const [unchosen, setUnchosen] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [created, setCreated] = useState<Run | null>(null);
  const [dateError, setDateError] = useState<string | null>(null);
  const runPages = useCursorPages();

  // The dry run's refusal of the date shows on the date field; anything else above the table.
  const proposalProblem =
    proposal.error instanceof ProblemError
      ? splitProblem(proposal.error.problem, [DATE_FIELD[kind]])
      : null;
  const shownDateError = proposalProblem?.fields[DATE_FIELD[kind]]?.message ?? dateError;

  const run = proposal.data?.run ?? null;
  const chosenIds = (run?.items ?? [])
    .map((item) => item.invoiceId)
    .filter((invoiceId) => !unchosen.has(invoiceId));

  const choose = (invoiceIds: readonly string[], chosen: boolean) =>
    setUnchosen((previous) => {
      const next = new Set(previous);
      for (const invoiceId of invoiceIds)
        if (chosen) next.delete(invoiceId);
        else next.add(invoiceId);
      return next;
    });

  const create = async () => {
    setBusy(true);
    setMessage(null);
    setDateError(null);
    setCreated(null);
    try {
      const made = await postRun(kind, {
        invoiceIds: chosenIds,
        date,
        useSkonto: kind === 'transfers' && useSkonto,
        dryRun: false,
      });
      setCreated(made);
      setUnchosen(new Set());
      // The new run is the newest: the list shows its first page.
      runPages.reset();
    } catch (error) {
      if (error instanceof ProblemError) {
        const split = splitProblem(error.problem, [DATE_FIELD[kind]]);
        setDateError(split.fields[DATE_FIELD[kind]]?.message ?? null);
        setMessage(split.form);
      } else {
        setMessage(t('common.unexpected'));
      }
    } finally {
      // A run changes its list, the proposals, and the invoices and payments it took.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.sepa.runs(kind) }),
        queryClient.invalidateQueries({ queryKey: keys.sepa.proposals() }),
        queryClient.invalidateQueries({ queryKey: keys.invoices.all }),
        queryClient.invalidateQueries({ queryKey: keys.payments.all }),
        queryClient.invalidateQueries({ queryKey: keys.dashboard.all }),
      ]);
      setBusy(false);
    }
  };

  const titleId = `sepa-${kind}-title`;
  return (
    <section className="panel sepa-part" aria-labelledby={titleId}>
      <h2 id={titleId}>{t(`sepa.${kind}.title`)}</h2>
      <p className="muted">{t(`sepa.${kind}.intro`)}</p>
      <form className="sepa-options" noValidate onSubmit={(event) => event.preventDefault()}>
        <Field
          label={t(`sepa.${kind}.date`)}
          type="date"
          hint={t(`sepa.${kind}.dateHint`)}
          registration={register('date')}
          error={shownDateError === null ? undefined : { message: shownDateError }}
        />
        {kind === 'transfers' ? (
          <CheckboxField
            label={t('sepa.transfers.useSkonto')}
            hint={t('sepa.transfers.useSkontoHint')}
            registration={register('useSkonto')}
          />
        ) : null}
      </form>
      <FormAlert message={message} />
      {created ? (
        <FormNote
          message={t(`sepa.${kind}.created`, {
            count: created.items.length,
            total: formats.money(created.total, created.currency),
          })}
        />
      ) : null}
      {proposal.isPending ? <LoadingOrError error={null} onRetry={() => undefined} /> : null}
      {proposal.isError && proposalProblem?.fields[DATE_FIELD[kind]] === undefined ? (
        <LoadingOrError error={proposal.error} onRetry={() => void proposal.refetch()} />
      ) : null}
      {proposal.data && run === null ? <p>{t(`sepa.${kind}.noOpen`)}</p> : null}
      {proposal.data && run ? (
        <>
          {proposal.data.more ? (
            <p className="muted">{t('sepa.more', { n: MAX_INVOICES })}</p>
          ) : null}
          <ProposalTable
            kind={kind}
            run={run}
            invoices={proposal.data.invoices}
            unchosen={unchosen}
            onChoose={choose}
          />
          <Refused kind={kind} run={run} invoices={proposal.data.invoices} />
          {run.items.length > 0 ? (
            <div className="actions">
              <button
                type="button"
                className="button button-primary"
                disabled={busy || chosenIds.length === 0}
                onClick={() => void create()}
              >
                {t(`sepa.${kind}.create`, { n: chosenIds.length })}
              </button>
            </div>
          ) : null}
        </>
      ) : null}
      <h3>{t(`sepa.${kind}.runsTitle`)}</h3>
      <RunList kind={kind} pages={runPages} onError={setMessage} />
    </section>
  );
}

export function SepaPage() {
  const { t } = useTranslation();
  return (
    <section className="screen" aria-labelledby="screen-title">
      <p>
        <Link to="/bank">{t('sepa.backToBank')}</Link>
      </p>
      <h1 id="screen-title">{t('sepa.title')}</h1>
      <p className="muted">{t('sepa.intro')}</p>
      <RunSection kind="collections" />
      <RunSection kind="transfers" />
    </section>
  );
}
