/**
 * What can happen to a FINAL invoice, each in a dialog: send it (the dialog quotes and order
 * confirmations use too), record a payment, credit part of it, cancel it (Storno). Every
 * outcome is the API's answer; every write invalidates the invoices (list and detail) it changed.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { FormAlert } from '../../components/Form';
import { InvoiceDialog } from '../../components/InvoiceDialog';
import { useFormats } from '../../api/account';
import { today } from '../../format';
import { formatAmountInput, formatDecimal, parseDecimal } from './editor-model';
import { useDialogWrite } from './dialog-write';
import { asJson, type Invoice } from './shared';

type Done = (message: string) => void;

/**
 * Mails a FINAL document (invoice, credit note, quote, order confirmation) through the API's
 * send, after showing what the API's send preview says it would mail. `title` and `sent` name
 * the document's type (an invoice's by default).
 */
export function SendDialog({
  document,
  onDone,
  title,
  sent,
}: {
  document: Invoice;
  onDone: Done;
  title?: string;
  /** The note after a mail handed to the mail server, to `to`. */
  sent?: (to: string) => string;
}) {
  const { t } = useTranslation();
  const dialog = useDialogWrite();
  const preview = useQuery({
    queryKey: keys.invoices.sendPreview(document.id),
    enabled: dialog.open,
    staleTime: 0,
    queryFn: async () => {
      const { data, error: problem } = await api.GET('/v1/documents/{documentId}/send-preview', {
        params: { path: { documentId: document.id } },
      });
      if (problem) throw new ProblemError(problem);
      return data;
    },
  });

  const send = async () => {
    const data = await dialog.submit((header) =>
      api.POST('/v1/documents/{documentId}/send', {
        params: { path: { documentId: document.id }, header },
      }),
    );
    if (data === undefined) return;
    dialog.close();
    const to = data.sentTo.join(', ');
    onDone(
      data.delivery === 'outbox'
        ? t('invoices.send.doneOutbox', { to })
        : (sent?.(to) ?? t('invoices.send.done', { to })),
    );
  };

  const data = preview.data;
  return (
    <InvoiceDialog
      open={dialog.open}
      onOpenChange={dialog.onOpenChange}
      title={title ?? t('invoices.send.title')}
      trigger={
        <button type="button" className="button">
          {t('invoices.send.open')}
        </button>
      }
    >
      <FormAlert message={dialog.error} />
      {preview.isPending ? <p role="status">{t('app.loading')}</p> : null}
      {preview.isError ? <p role="alert">{preview.error.message}</p> : null}
      {data ? (
        <>
          <dl className="invoice-facts">
            <dt>{t('invoices.send.to')}</dt>
            <dd>{data.to.length > 0 ? data.to.join(', ') : t('invoices.send.noRecipient')}</dd>
            <dt>{t('invoices.send.replyTo')}</dt>
            <dd>{data.replyTo ?? t('invoices.send.noReplyTo')}</dd>
            <dt>{t('invoices.send.from')}</dt>
            <dd>{data.from}</dd>
            <dt>{t('invoices.send.subject')}</dt>
            <dd>{data.subject}</dd>
            <dt>{t('invoices.send.attachments')}</dt>
            <dd>{data.attachments.map((file) => file.name).join(', ')}</dd>
          </dl>
          {data.delivery === 'outbox' ? (
            <p className="warning-box">{t('invoices.send.outbox')}</p>
          ) : (
            <p>{t('invoices.send.smtp')}</p>
          )}
        </>
      ) : null}
      <button
        type="button"
        className="button button-primary"
        disabled={dialog.busy || data === undefined}
        onClick={() => void send()}
      >
        {data?.delivery === 'outbox' ? t('invoices.send.submitOutbox') : t('invoices.send.submit')}
      </button>
    </InvoiceDialog>
  );
}

export function PaymentDialog({ invoice, onDone }: { invoice: Invoice; onDone: Done }) {
  const { t, i18n } = useTranslation();
  const format = useFormats();
  const amountId = useId();
  const dateId = useId();
  const dialog = useDialogWrite();
  const [amount, setAmount] = useState<string | null>(null);
  const [date, setDate] = useState(today);
  // The open amount is the API's: every payment answer of the invoice carries it.
  const payments = useQuery({
    queryKey: keys.invoices.payments(invoice.id),
    enabled: dialog.open,
    staleTime: 0,
    queryFn: async () => {
      const { data, error: problem } = await api.GET('/v1/payments', {
        params: { query: { documentId: invoice.id, limit: 1 } },
      });
      if (problem) throw new ProblemError(problem);
      return asJson(data).data;
    },
  });
  const openAmount = payments.data
    ? (payments.data[0]?.document?.openAmount ?? invoice.grossTotal)
    : undefined;
  const shownAmount =
    amount ??
    (openAmount === undefined
      ? ''
      : formatAmountInput(openAmount, invoice.currency, i18n.language));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = parseDecimal(shownAmount);
    if (value === undefined || Number.isNaN(value)) {
      dialog.setError(t('invoices.editor.notANumber'));
      return;
    }
    const data = await dialog.submit((header) =>
      api.POST('/v1/payments', {
        params: { header },
        body: {
          documentId: invoice.id,
          amount: value,
          currency: invoice.currency as 'EUR',
          paymentDate: date,
        },
      }),
    );
    if (data === undefined) return;
    dialog.close();
    setAmount(null);
    const status = data.document?.paymentStatus;
    onDone(
      t('invoices.payment.done', {
        amount: format.money(data.amount, data.currency),
        status: status ? t(`invoices.paymentStatus.${status}`) : '',
        open: format.money(data.document?.openAmount ?? 0, invoice.currency),
      }),
    );
  };

  return (
    <InvoiceDialog
      open={dialog.open}
      onOpenChange={(next) => {
        dialog.onOpenChange(next);
        setAmount(null);
      }}
      title={t('invoices.payment.title')}
      trigger={
        <button type="button" className="button">
          {t('invoices.payment.open')}
        </button>
      }
    >
      <form className="form" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={dialog.error} />
        {openAmount !== undefined ? (
          <p>
            {t('invoices.payment.openAmount', {
              amount: format.money(openAmount, invoice.currency),
            })}
          </p>
        ) : (
          <p role="status">{t('app.loading')}</p>
        )}
        <div className="field">
          <label htmlFor={amountId}>
            {t('invoices.payment.amount', { currency: invoice.currency })}
          </label>
          <input
            id={amountId}
            inputMode="decimal"
            value={shownAmount}
            onChange={(event) => setAmount(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={dateId}>{t('invoices.payment.date')}</label>
          <input
            id={dateId}
            type="date"
            value={date}
            onChange={(event) => setDate(event.target.value)}
          />
        </div>
        <button
          type="submit"
          className="button button-primary"
          disabled={dialog.busy || openAmount === undefined}
        >
          {t('invoices.payment.submit')}
        </button>
      </form>
    </InvoiceDialog>
  );
}

interface CreditLine {
  selected: boolean;
  quantity: string;
}

export function CreditNoteDialog({ invoice, onDone }: { invoice: Invoice; onDone: Done }) {
  const { t, i18n } = useTranslation();
  const format = useFormats();
  const noteId = useId();
  const dialog = useDialogWrite();
  const [note, setNote] = useState('');
  const initial = () =>
    invoice.lineItems.map((line): CreditLine => ({
      selected: false,
      quantity: formatDecimal(line.quantity, i18n.language),
    }));
  const [lines, setLines] = useState<CreditLine[]>(initial);
  const [created, setCreated] = useState<Invoice | null>(null);
  // Or an amount: one free line at one of the invoice's rates (e.g. a goodwill reduction).
  const amountIds = { text: useId(), amount: useId(), rate: useId() };
  const [amountText, setAmountText] = useState('');
  const [amount, setAmount] = useState('');
  const [amountRate, setAmountRate] = useState(invoice.taxes[0]?.taxRateId ?? '');

  const update = (index: number, change: Partial<CreditLine>) =>
    setLines((all) => all.map((line, i) => (i === index ? { ...line, ...change } : line)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    dialog.setError(null);
    const lineItems = invoice.lineItems.flatMap((line, index) => {
      const chosen = lines[index];
      if (!chosen?.selected) return [];
      return [
        {
          ...(line.productId ? { productId: line.productId } : {}),
          description: line.description,
          quantity: parseDecimal(chosen.quantity) ?? 0,
          unitPrice: line.unitPrice,
          taxRateId: line.taxRateId,
          unitCode: line.unitCode,
        },
      ];
    });
    const net = parseDecimal(amount);
    if (net !== undefined && Number.isNaN(net)) {
      dialog.setError(t('invoices.editor.notANumber'));
      return;
    }
    if (net !== undefined) {
      lineItems.push({
        description: amountText.trim() || t('invoices.creditNote.amountDefault'),
        quantity: 1,
        unitPrice: net,
        taxRateId: amountRate,
        unitCode: 'C62',
      });
    }
    const data = await dialog.submit((header) =>
      api.POST('/v1/documents/{documentId}/credit-notes', {
        params: { path: { documentId: invoice.id }, header },
        body: { lineItems, ...(note.trim() ? { note: note.trim() } : {}) },
      }),
    );
    if (data === undefined) return;
    setCreated(data);
    onDone(t('invoices.creditNote.done', { number: data.documentNumber ?? '' }));
  };

  return (
    <InvoiceDialog
      open={dialog.open}
      onOpenChange={(next) => {
        dialog.onOpenChange(next);
        setCreated(null);
        setLines(initial());
      }}
      title={t('invoices.creditNote.title')}
      description={t('invoices.creditNote.description')}
      trigger={
        <button type="button" className="button">
          {t('invoices.creditNote.open')}
        </button>
      }
    >
      {created ? (
        <p role="status">
          {t('invoices.creditNote.created')}{' '}
          <Link to="/invoices/$documentId" params={{ documentId: created.id }}>
            {created.documentNumber}
          </Link>
        </p>
      ) : (
        <form className="form" noValidate onSubmit={(event) => void submit(event)}>
          <FormAlert message={dialog.error} />
          <fieldset className="form-group">
            <legend>{t('invoices.creditNote.lines')}</legend>
            {invoice.lineItems.map((line, index) => (
              <div key={index} className="credit-line">
                <label>
                  <input
                    type="checkbox"
                    checked={lines[index]?.selected ?? false}
                    onChange={(event) => update(index, { selected: event.target.checked })}
                  />
                  {line.description} ({format.money(line.unitPrice, invoice.currency)})
                </label>
                <label>
                  {t('invoices.creditNote.quantity', { position: index + 1 })}
                  <input
                    inputMode="decimal"
                    value={lines[index]?.quantity ?? ''}
                    onChange={(event) => update(index, { quantity: event.target.value })}
                  />
                </label>
              </div>
            ))}
          </fieldset>
          <fieldset className="form-group">
            <legend>{t('invoices.creditNote.amountTitle')}</legend>
            <div className="field">
              <label htmlFor={amountIds.text}>{t('invoices.editor.description')}</label>
              <input
                id={amountIds.text}
                value={amountText}
                onChange={(event) => setAmountText(event.target.value)}
              />
            </div>
            <div className="form-row">
              <div className="field">
                <label htmlFor={amountIds.amount}>
                  {t('invoices.creditNote.amount', { currency: invoice.currency })}
                </label>
                <input
                  id={amountIds.amount}
                  inputMode="decimal"
                  value={amount}
                  onChange={(event) => setAmount(event.target.value)}
                />
              </div>
              <div className="field">
                <label htmlFor={amountIds.rate}>{t('invoices.editor.taxRate')}</label>
                <select
                  id={amountIds.rate}
                  value={amountRate}
                  onChange={(event) => setAmountRate(event.target.value)}
                >
                  {invoice.taxes.map((tax) => (
                    <option key={tax.taxRateId} value={tax.taxRateId}>
                      {t('invoices.totals.rateLabel', {
                        rate: format.percent(tax.rate),
                        category: tax.category,
                      })}
                    </option>
                  ))}
                </select>
              </div>
            </div>
          </fieldset>
          <div className="field">
            <label htmlFor={noteId}>{t('invoices.creditNote.note')}</label>
            <input id={noteId} value={note} onChange={(event) => setNote(event.target.value)} />
          </div>
          <button type="submit" className="button button-primary" disabled={dialog.busy}>
            {t('invoices.creditNote.submit')}
          </button>
        </form>
      )}
    </InvoiceDialog>
  );
}

export function CancelDialog({ invoice, onDone }: { invoice: Invoice; onDone: Done }) {
  const { t } = useTranslation();
  const noteId = useId();
  const dialog = useDialogWrite();
  const [note, setNote] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const data = await dialog.submit((header) =>
      api.POST('/v1/documents/{documentId}/cancel', {
        params: { path: { documentId: invoice.id }, header },
        body: note.trim() ? { note: note.trim() } : {},
      }),
    );
    if (data === undefined) return;
    dialog.close();
    onDone(t('invoices.cancel.done', { number: data.documentNumber ?? '' }));
  };

  return (
    <InvoiceDialog
      open={dialog.open}
      onOpenChange={dialog.onOpenChange}
      title={t('invoices.cancel.title')}
      description={t('invoices.cancel.description', { number: invoice.documentNumber ?? '' })}
      trigger={
        <button type="button" className="button button-danger">
          {t('invoices.cancel.open')}
        </button>
      }
    >
      <form className="form" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={dialog.error} />
        <div className="field">
          <label htmlFor={noteId}>{t('invoices.cancel.note')}</label>
          <input id={noteId} value={note} onChange={(event) => setNote(event.target.value)} />
        </div>
        <button type="submit" className="button button-danger" disabled={dialog.busy}>
          {t('invoices.cancel.submit')}
        </button>
      </form>
    </InvoiceDialog>
  );
}
