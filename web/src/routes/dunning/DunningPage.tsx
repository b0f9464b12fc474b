/**
 * Dunning: the letters a run would send as of a day (the API's dry run, figures as it answers
 * them), blocks for an invoice or a customer, the real run of the chosen letters (admins), and
 * the settings. Every proposed letter starts chosen; the run names the chosen invoices
 * (`invoiceIds`) and the API re-checks each, so its answer says what was really sent.
 */
import type { components } from '@kontor/client';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { useSession } from '../../api/session';
import { FormAlert, FormNote } from '../../components/Form';
import { formatDate, formatMoney, formatPercent, today } from '../../format';
import { DunningSettingsForm } from './DunningSettings';
import '../../styles/forms.css';
import '../../styles/dunning.css';

type Run = components['schemas']['RunDunningResponse'];
type Letter = Run['letters'][number];

/** The API's `maxItems` of a run's `invoiceIds`: longer choices go in several runs. */
const RUN_CHUNK = 1000;

/** The real run of the chosen invoices, in chunks the API accepts, as one answer. */
async function sendChosen(invoiceIds: readonly string[]): Promise<Run> {
  const runs: Run[] = [];
  for (let start = 0; start < invoiceIds.length; start += RUN_CHUNK) {
    const { data, error } = await api.POST('/v1/dunning/runs', {
      body: { dryRun: false, invoiceIds: invoiceIds.slice(start, start + RUN_CHUNK) },
    });
    if (error) throw new ProblemError(error);
    runs.push(data);
  }
  const first = runs[0];
  if (first === undefined) throw new Error('no invoice chosen');
  return {
    ...first,
    letters: runs.flatMap((run) => run.letters),
    problems: runs.flatMap((run) => run.problems),
  };
}

function useProposal(date: string) {
  return useQuery({
    queryKey: keys.dunning.proposal(date),
    queryFn: async () => {
      const { data, error } = await api.POST('/v1/dunning/runs', { body: { dryRun: true, date } });
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

/** Overdue invoices, to list the blocked ones (the list has no block filter of its own). */
function useBlockedInvoices() {
  return useQuery({
    queryKey: keys.invoices.list({ overdue: true, purpose: 'dunning-blocked' }),
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/documents', {
        params: { query: { documentType: 'INVOICE', overdue: true, limit: 100 } },
      });
      if (error) throw new ProblemError(error);
      // The route also speaks CSV; without an Accept header for it the answer is JSON.
      if (typeof data === 'string') return [];
      return data.data.filter((invoice) => invoice.dunningBlocked);
    },
  });
}

function Kind({ kind }: { kind: Letter['kind'] }) {
  const { t } = useTranslation();
  return (
    <>{kind === 'PAYMENT_REMINDER' ? t('dunning.kind.reminder') : t('dunning.kind.dunning')}</>
  );
}

interface Choice {
  /** Whether the letter goes out with the next run (every proposed letter starts chosen). */
  chosen: (invoiceId: string) => boolean;
  /** Whether choices can be made: admins, as of today. */
  canChoose: boolean;
  onChoose: (invoiceIds: readonly string[], chosen: boolean) => void;
}

interface RowProps {
  letter: Letter;
  busy: boolean;
  choice: Choice;
  onBlockInvoice: (letter: Letter) => void;
  onBlockPartner: (letter: Letter) => void;
}

function LetterRow({ letter, busy, choice, onBlockInvoice, onBlockPartner }: RowProps) {
  const { t } = useTranslation();
  const money = (amount: number) => formatMoney(amount, letter.currency);
  const number = letter.invoiceNumber ?? letter.invoiceId;
  const checkboxId = `dunning-choose-${letter.invoiceId}`;
  return (
    <tr>
      {choice.canChoose ? (
        <td className="choose">
          <input
            id={checkboxId}
            type="checkbox"
            checked={choice.chosen(letter.invoiceId)}
            disabled={busy}
            onChange={(event) => choice.onChoose([letter.invoiceId], event.target.checked)}
          />
          <label htmlFor={checkboxId} className="visually-hidden">
            {t('dunning.choose.one', { invoice: number })}
          </label>
        </td>
      ) : null}
      <th scope="row">{number}</th>
      <td>{letter.partnerName ?? t('dunning.none')}</td>
      <td>
        {formatDate(letter.dueDate)}
        <br />
        <span className="muted">{t('dunning.daysOverdue', { n: letter.daysOverdue })}</span>
      </td>
      <td>
        {letter.level}
        <br />
        <span className="muted">
          <Kind kind={letter.kind} />
        </span>
      </td>
      <td className="num">{money(letter.openAmount)}</td>
      <td className="num">
        {money(letter.fee)}
        {letter.priorFees > 0 ? (
          <>
            <br />
            <span className="muted">
              {t('dunning.priorFees', { amount: money(letter.priorFees) })}
            </span>
          </>
        ) : null}
        {letter.flatFee > 0 ? (
          <>
            <br />
            <span className="muted">{t('dunning.flatFee', { amount: money(letter.flatFee) })}</span>
          </>
        ) : null}
      </td>
      <td className="num">
        {money(letter.interest)}
        {letter.interestRate !== null ? (
          <>
            <br />
            <span className="muted">{formatPercent(letter.interestRate)}</span>
          </>
        ) : null}
      </td>
      <td className="num">
        <strong>{money(letter.total)}</strong>
        <br />
        <span className="muted">{t('dunning.payBy', { date: formatDate(letter.payBy) })}</span>
      </td>
      <td>
        <div className="row-actions">
          <button
            type="button"
            className="button button-small"
            disabled={busy}
            onClick={() => onBlockInvoice(letter)}
          >
            {/* Short on screen, whole for assistive technology (it starts with the visible word). */}
            <span aria-hidden="true">{t('dunning.blockInvoice')}</span>
            <span className="visually-hidden">
              {t('dunning.blockInvoiceOf', { invoice: number })}
            </span>
          </button>
          {letter.partnerId ? (
            <button
              type="button"
              className="button button-small"
              disabled={busy}
              onClick={() => onBlockPartner(letter)}
            >
              <span aria-hidden="true">{t('dunning.blockPartner')}</span>
              <span className="visually-hidden">
                {t('dunning.blockPartnerOf', { partner: letter.partnerName ?? '' })}
              </span>
            </button>
          ) : null}
        </div>
      </td>
    </tr>
  );
}

/** The header's checkbox: all letters chosen, none, or some (mixed). */
function ChooseAll({ run, busy, choice }: { run: Run; busy: boolean; choice: Choice }) {
  const { t } = useTranslation();
  const ids = run.letters.map((letter) => letter.invoiceId);
  const count = ids.filter((id) => choice.chosen(id)).length;
  const all = count === ids.length;
  return (
    <label className="choose-all">
      <input
        type="checkbox"
        checked={all}
        // Mixed: some letters chosen; a click chooses them all.
        ref={(input) => {
          if (input) input.indeterminate = count > 0 && !all;
        }}
        disabled={busy}
        onChange={() => choice.onChoose(ids, !all)}
      />
      {/* Short on screen, whole for assistive technology (it starts with the visible word). */}
      <span aria-hidden="true">{t('dunning.choose.allShort')}</span>
      <span className="visually-hidden">{t('dunning.choose.all')}</span>
    </label>
  );
}

function ProposalTable({
  run,
  busy,
  choice,
  onBlockInvoice,
  onBlockPartner,
}: {
  run: Run;
  busy: boolean;
  choice: Choice;
  onBlockInvoice: (letter: Letter) => void;
  onBlockPartner: (letter: Letter) => void;
}) {
  const { t } = useTranslation();
  if (run.letters.length === 0) return <p>{t('dunning.nothingDue')}</p>;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption>
          {t('dunning.caption', { date: formatDate(run.date), n: run.letters.length })}
        </caption>
        <thead>
          <tr>
            {choice.canChoose ? (
              <th scope="col">
                <ChooseAll run={run} busy={busy} choice={choice} />
              </th>
            ) : null}
            <th scope="col">{t('dunning.col.invoice')}</th>
            <th scope="col">{t('dunning.col.customer')}</th>
            <th scope="col">{t('dunning.col.due')}</th>
            <th scope="col">{t('dunning.col.level')}</th>
            <th scope="col" className="num">
              {t('dunning.col.open')}
            </th>
            <th scope="col" className="num">
              {t('dunning.col.fee')}
            </th>
            <th scope="col" className="num">
              {t('dunning.col.interest')}
            </th>
            <th scope="col" className="num">
              {t('dunning.col.total')}
            </th>
            <th scope="col">{t('dunning.col.block')}</th>
          </tr>
        </thead>
        <tbody>
          {run.letters.map((letter) => (
            <LetterRow
              key={letter.invoiceId}
              letter={letter}
              busy={busy}
              choice={choice}
              onBlockInvoice={onBlockInvoice}
              onBlockPartner={onBlockPartner}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a run sent, and how many of the chosen invoices the API found no longer due. */
function SentResult({ run, chosen }: { run: Run; chosen: number }) {
  const { t } = useTranslation();
  const notDue = chosen - run.letters.length - run.problems.length;
  return (
    <section className="panel" aria-labelledby="sent-title">
      <h2 id="sent-title">{t('dunning.sent.title')}</h2>
      <FormNote
        message={t('dunning.sent.summary', {
          n: run.letters.length,
          queued: run.letters.filter((letter) => letter.sendQueued).length,
        })}
      />
      {notDue > 0 ? <p>{t('dunning.sent.notDue', { n: notDue })}</p> : null}
      <ul>
        {run.letters.map((letter) => (
          <li key={letter.invoiceId}>
            {t('dunning.sent.letter', {
              invoice: letter.invoiceNumber ?? letter.invoiceId,
              level: letter.level,
              total: formatMoney(letter.total, letter.currency),
            })}{' '}
            {letter.sendQueued ? t('dunning.sent.queued') : t('dunning.sent.print')}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Problems({ problems }: { problems: Run['problems'] }) {
  const { t } = useTranslation();
  if (problems.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="problems-title">
      <h2 id="problems-title">{t('dunning.problems')}</h2>
      <ul>
        {problems.map((problem) => (
          <li key={`${problem.invoiceId}-${problem.code}`}>{problem.detail}</li>
        ))}
      </ul>
    </section>
  );
}

export function DunningPage() {
  const { t } = useTranslation();
  const search = useSearch({ from: '/app/dunning' });
  const navigate = useNavigate({ from: '/dunning' });
  const queryClient = useQueryClient();
  const session = useSession();
  const isAdmin = session?.user.role === 'admin';
  const date = search.date ?? today();
  const proposal = useProposal(date);
  const blocked = useBlockedInvoices();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [sent, setSent] = useState<{ run: Run; chosen: number } | null>(null);
  // The letters taken out of the run; every other proposed letter is chosen, new ones too.
  const [unchosen, setUnchosen] = useState<ReadonlySet<string>>(new Set());

  const afterWrite = async () => {
    // A block or a run changes the proposal of every day, and the invoices it touched.
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.dunning.all }),
      queryClient.invalidateQueries({ queryKey: keys.invoices.all }),
    ]);
  };

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setMessage(null);
    setNote(null);
    try {
      await work();
    } catch (error) {
      setMessage(error instanceof ProblemError ? error.message : t('common.unexpected'));
    } finally {
      setBusy(false);
    }
  };

  const setInvoiceBlock = (invoiceId: string, label: string, blockedNow: boolean) =>
    void act(async () => {
      const { error } = await api.PUT('/v1/documents/{documentId}/dunning-block', {
        params: { path: { documentId: invoiceId } },
        body: { blocked: blockedNow },
      });
      if (error) throw new ProblemError(error);
      await afterWrite();
      setNote(
        blockedNow
          ? t('dunning.invoiceBlocked', { invoice: label })
          : t('dunning.invoiceUnblocked', { invoice: label }),
      );
    });

  /** The partner's block with the version just read; a stale version reads once more. */
  const blockPartner = (letter: Letter) =>
    void act(async () => {
      const partnerId = letter.partnerId;
      if (partnerId === null) return;
      for (let attempt = 0; attempt < 2; attempt++) {
        const read = await api.GET('/v1/partners/{partnerId}', {
          params: { path: { partnerId } },
        });
        if (read.error) throw new ProblemError(read.error);
        const { error } = await api.PUT('/v1/partners/{partnerId}', {
          params: { path: { partnerId } },
          body: { version: read.data.version, dunningBlocked: true },
        });
        if (!error) break;
        if (error.code !== 'version_conflict' || attempt === 1) throw new ProblemError(error);
      }
      await Promise.all([
        afterWrite(),
        queryClient.invalidateQueries({ queryKey: keys.partners.all }),
      ]);
      setNote(t('dunning.partnerBlocked', { partner: letter.partnerName ?? '' }));
    });

  const isToday = date === today();
  const proposed = proposal.data?.letters ?? [];
  const chosenIds = proposed
    .map((letter) => letter.invoiceId)
    .filter((invoiceId) => !unchosen.has(invoiceId));
  const letters = chosenIds.length;
  const choice: Choice = {
    chosen: (invoiceId) => !unchosen.has(invoiceId),
    canChoose: isAdmin && isToday,
    onChoose: (invoiceIds, chosen) =>
      setUnchosen((previous) => {
        const next = new Set(previous);
        for (const invoiceId of invoiceIds)
          if (chosen) next.delete(invoiceId);
          else next.add(invoiceId);
        return next;
      }),
  };

  const send = () =>
    void act(async () => {
      try {
        const run = await sendChosen(chosenIds);
        setConfirming(false);
        setSent({ run, chosen: chosenIds.length });
      } finally {
        // A refused later chunk may follow letters already sent: read the proposal anew.
        await afterWrite();
      }
    });

  return (
    <section className="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('dunning.title')}</h1>
      <p className="muted">{t('dunning.intro')}</p>
      <div className="field as-of">
        <label htmlFor="dunning-date">{t('dunning.asOf')}</label>
        <input
          id="dunning-date"
          type="date"
          value={date}
          onChange={(event) => {
            const value = event.target.value;
            void navigate({ search: value === '' || value === today() ? {} : { date: value } });
          }}
        />
      </div>
      <FormAlert message={message} />
      <FormNote message={note} />
      {proposal.isPending ? <p role="status">{t('app.loading')}</p> : null}
      {proposal.isError ? (
        <div role="alert" className="form-alert">
          {proposal.error.message}
        </div>
      ) : null}
      {proposal.data ? (
        <>
          <ProposalTable
            run={proposal.data}
            busy={busy}
            choice={choice}
            onBlockInvoice={(letter) =>
              setInvoiceBlock(letter.invoiceId, letter.invoiceNumber ?? letter.invoiceId, true)
            }
            onBlockPartner={blockPartner}
          />
          <Problems problems={proposal.data.problems} />
        </>
      ) : null}
      {proposed.length > 0 ? (
        <div className="send-box" role="group" aria-label={t('dunning.send.group')}>
          {!isAdmin ? (
            <p className="muted">{t('dunning.send.adminOnly')}</p>
          ) : !isToday ? (
            <p className="muted">{t('dunning.send.onlyToday')}</p>
          ) : confirming ? (
            <>
              <p>{t('dunning.send.confirm', { n: letters })}</p>
              <div className="actions">
                <button
                  type="button"
                  className="button button-primary"
                  disabled={busy || letters === 0}
                  onClick={send}
                >
                  {t('dunning.send.yes', { n: letters })}
                </button>
                <button type="button" className="button" onClick={() => setConfirming(false)}>
                  {t('dunning.send.no')}
                </button>
              </div>
            </>
          ) : (
            <>
              <p className="muted" id="dunning-send-hint">
                {letters > 0 ? t('dunning.send.hint') : t('dunning.send.noneChosen')}
              </p>
              <button
                type="button"
                className="button button-primary"
                disabled={busy || letters === 0}
                aria-describedby="dunning-send-hint"
                onClick={() => setConfirming(true)}
              >
                {t('dunning.send.start', { n: letters })}
              </button>
            </>
          )}
        </div>
      ) : null}
      {sent ? <SentResult run={sent.run} chosen={sent.chosen} /> : null}
      {blocked.data && blocked.data.length > 0 ? (
        <section className="panel" aria-labelledby="blocked-title">
          <h2 id="blocked-title">{t('dunning.blocked.title')}</h2>
          <ul className="blocked-list">
            {blocked.data.map((invoice) => (
              <li key={invoice.id}>
                {invoice.documentNumber} · {invoice.partnerName}{' '}
                <button
                  type="button"
                  className="button button-small"
                  disabled={busy}
                  onClick={() =>
                    setInvoiceBlock(invoice.id, invoice.documentNumber ?? invoice.id, false)
                  }
                >
                  {t('dunning.blocked.lift')}
                  <span className="visually-hidden"> {invoice.documentNumber}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <DunningSettingsForm isAdmin={isAdmin} />
    </section>
  );
}
