/**
 * What can happen to a FINAL quote or order confirmation, each in a dialog: record the
 * customer's answer (accepted or declined, with who answered), and convert it into an order
 * confirmation or an invoice, with all lines or the chosen ones. Every outcome is the API's
 * answer; every write refreshes the documents (lists and details) through `useDialogWrite`.
 */
import { useNavigate } from '@tanstack/react-router';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { useFormats } from '../../api/account';
import { FormAlert } from '../../components/Form';
import { InvoiceDialog } from '../../components/InvoiceDialog';
import { useDialogWrite } from '../invoices/dialog-write';
import type { Invoice } from '../invoices/shared';

type Done = (message: string) => void;

export function DecisionDialog({
  document,
  decision,
  onDone,
}: {
  document: Invoice;
  decision: 'ACCEPTED' | 'DECLINED';
  onDone: Done;
}) {
  const { t } = useTranslation();
  const nameId = useId();
  const dialog = useDialogWrite();
  const [name, setName] = useState('');
  const accepted = decision === 'ACCEPTED';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // A second answer is 409 (compare-and-set on OPEN): a lost answer's retry cannot record twice.
    const data = await dialog.submit(() =>
      api.POST('/v1/documents/{documentId}/decision', {
        params: { path: { documentId: document.id } },
        body: { decision, ...(name.trim() ? { name: name.trim() } : {}) },
      }),
    );
    if (data === undefined) return;
    dialog.close();
    onDone(
      accepted
        ? t('quotes.decision.acceptedDone', { name: data.quoteDecidedBy ?? '' })
        : t('quotes.decision.declinedDone', { name: data.quoteDecidedBy ?? '' }),
    );
  };

  return (
    <InvoiceDialog
      open={dialog.open}
      onOpenChange={dialog.onOpenChange}
      title={accepted ? t('quotes.decision.acceptTitle') : t('quotes.decision.declineTitle')}
      description={t('quotes.decision.description')}
      trigger={
        <button type="button" className={accepted ? 'button' : 'button button-danger'}>
          {accepted ? t('quotes.decision.accept') : t('quotes.decision.decline')}
        </button>
      }
    >
      <form className="form" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={dialog.error} />
        <div className="field">
          <label htmlFor={nameId}>{t('quotes.decision.name')}</label>
          <input
            id={nameId}
            value={name}
            maxLength={200}
            autoComplete="off"
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-primary" disabled={dialog.busy}>
          {accepted ? t('quotes.decision.acceptSubmit') : t('quotes.decision.declineSubmit')}
        </button>
      </form>
    </InvoiceDialog>
  );
}

export function ConvertDialog({
  document,
  target,
}: {
  document: Invoice;
  target: 'ORDER_CONFIRMATION' | 'INVOICE';
}) {
  const { t } = useTranslation();
  const format = useFormats();
  const navigate = useNavigate();
  const dialog = useDialogWrite();
  const all = () => document.lineItems.map(() => true);
  const [chosen, setChosen] = useState<boolean[]>(all);
  const toInvoice = target === 'INVOICE';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const positions = chosen.flatMap((on, index) => (on ? [index + 1] : []));
    if (positions.length === 0) {
      dialog.setError(t('quotes.convert.noLines'));
      return;
    }
    const everything = positions.length === document.lineItems.length;
    const data = await dialog.submit((header) =>
      api.POST('/v1/documents/{documentId}/convert', {
        params: { path: { documentId: document.id }, header },
        body: { documentType: target, ...(everything ? {} : { linePositions: positions }) },
      }),
    );
    if (data === undefined) return;
    dialog.close();
    await navigate(
      toInvoice
        ? { to: '/invoices/$documentId', params: { documentId: data.id } }
        : { to: '/quotes/$documentId', params: { documentId: data.id } },
    );
  };

  return (
    <InvoiceDialog
      open={dialog.open}
      onOpenChange={(next) => {
        dialog.onOpenChange(next);
        setChosen(all());
      }}
      title={
        toInvoice ? t('quotes.convert.toInvoiceTitle') : t('quotes.convert.toConfirmationTitle')
      }
      description={t('quotes.convert.description')}
      trigger={
        <button type="button" className="button">
          {toInvoice ? t('quotes.convert.toInvoice') : t('quotes.convert.toConfirmation')}
        </button>
      }
    >
      <form className="form" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={dialog.error} />
        <fieldset className="form-group">
          <legend>{t('quotes.convert.lines')}</legend>
          {document.lineItems.map((line, index) => (
            <div key={index} className="credit-line">
              <label>
                <input
                  type="checkbox"
                  checked={chosen[index] ?? false}
                  onChange={(event) =>
                    setChosen((now) =>
                      now.map((on, i) => (i === index ? event.target.checked : on)),
                    )
                  }
                />
                {t('quotes.convert.line', {
                  position: index + 1,
                  description: line.description,
                  amount: format.money(line.netAmount, document.currency),
                })}
              </label>
            </div>
          ))}
        </fieldset>
        <button type="submit" className="button button-primary" disabled={dialog.busy}>
          {toInvoice ? t('quotes.convert.submitInvoice') : t('quotes.convert.submitConfirmation')}
        </button>
      </form>
    </InvoiceDialog>
  );
}
