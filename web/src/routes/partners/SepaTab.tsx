/**
 * A partner's SEPA data: its direct-debit mandates (`/v1/partners/{id}/mandates`: the list,
 * a new one, changing one with `PUT /v1/sepa/mandates/{id}`, revoking one) and the bank
 * account its invoices are paid to by transfer (`/v1/partners/{id}/bank-account`). The API
 * checks every field (IBAN, reference, dates) and answers IBANs only masked; its refusals show
 * on their fields and what was typed stays, also when a change meets a newer version.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@kontor/client';
import { useId, useState } from 'react';
import { useForm, type FieldError, type UseFormRegisterReturn } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useFormats } from '../../api/account';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem, ProblemError } from '../../api/problems';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { SelectField } from '../../components/FormFields';
import { LoadingOrError } from '../../components/LoadingOrError';
import { useKeepEditsOnConflict } from '../../hooks/useKeepEditsOnConflict';
import { unwrapPage } from './pages';
import '../../styles/sepa.css';

type Mandate = components['schemas']['PartnerMandate'];
type SequenceState = NonNullable<components['schemas']['CreatePartnerMandate']['sequenceState']>;
type Scheme = Mandate['scheme'];

const SEQUENCE_STATES: SequenceState[] = ['FIRST', 'RECURRING', 'FINAL', 'ONE_OFF'];
const SCHEMES: Scheme[] = ['CORE', 'B2B'];

/** An optional text the API takes as null when empty (a BIC). */
const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** A form's message and saved note, and its save wrapped so an unexpected failure shows. */
function useFormMessages() {
  const { t } = useTranslation();
  const [message, setMessage] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const run = async (save: () => Promise<void>) => {
    setMessage(null);
    setSaved(null);
    try {
      await save();
    } catch {
      setMessage(t('common.unexpected'));
    }
  };
  return { message, setMessage, saved, setSaved, run };
}

interface Registered {
  registration: UseFormRegisterReturn;
  error: FieldError | undefined;
}

/** The account holder, IBAN and BIC: one piece for the mandate forms and the bank account. */
function AccountFields({
  labels,
  name,
  iban,
  bic,
}: {
  labels: { name: string; iban: string; ibanHint?: string; bic: string };
  name: Registered;
  iban: Registered;
  bic: Registered;
}) {
  return (
    <>
      <Field label={labels.name} registration={name.registration} error={name.error} />
      <Field
        label={labels.iban}
        autoComplete="off"
        {...(labels.ibanHint === undefined ? {} : { hint: labels.ibanHint })}
        registration={iban.registration}
        error={iban.error}
      />
      <Field
        label={labels.bic}
        autoComplete="off"
        registration={bic.registration}
        error={bic.error}
      />
    </>
  );
}

/** The scheme select (CORE or B2B) of the mandate forms. */
function SchemeField({ registration, error }: Registered) {
  const { t } = useTranslation();
  return (
    <SelectField
      label={t('sepa.mandates.scheme')}
      hint={t('sepa.mandates.schemeHint')}
      registration={registration}
      error={error}
    >
      {SCHEMES.map((scheme) => (
        <option key={scheme} value={scheme}>
          {t(`sepa.schemes.${scheme}`)}
        </option>
      ))}
    </SelectField>
  );
}

function useMandates(partnerId: string) {
  return useQuery({
    queryKey: keys.sepa.mandates(partnerId),
    queryFn: async () =>
      unwrapPage(
        await api.GET('/v1/partners/{partnerId}/mandates', {
          params: { path: { partnerId }, query: { limit: 100 } },
        }),
      ).data,
  });
}

function MandateState({ mandate }: { mandate: Mandate }) {
  const { t } = useTranslation();
  const formats = useFormats();
  if (mandate.revokedAt !== null) {
    return (
      <>{t('sepa.mandates.revokedOn', { date: formats.date(mandate.revokedAt.slice(0, 10)) })}</>
    );
  }
  if (!mandate.active) return <>{t('sepa.mandates.completed')}</>;
  return (
    <>
      {t('sepa.mandates.active')}
      {mandate.amendmentPending ? (
        <>
          <br />
          <span className="muted">{t('sepa.mandates.amendmentPending')}</span>
        </>
      ) : null}
    </>
  );
}

function MandateList({ partnerId }: { partnerId: string }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const queryClient = useQueryClient();
  const mandates = useMandates(partnerId);
  const [editing, setEditing] = useState<string | null>(null);
  if (mandates.data === undefined) {
    return <LoadingOrError error={mandates.error} onRetry={() => void mandates.refetch()} />;
  }
  if (mandates.data.length === 0) return <p className="muted">{t('sepa.mandates.empty')}</p>;

  const revoke = async (mandate: Mandate): Promise<string | null> => {
    const { error } = await api.POST('/v1/sepa/mandates/{mandateId}/revoke', {
      params: { path: { mandateId: mandate.id } },
      body: { version: mandate.version },
    });
    // The list shows the mandate as it is now (revoked, or changed by someone else); a
    // revoked mandate also leaves the collection proposals.
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.sepa.mandates(partnerId) }),
      queryClient.invalidateQueries({ queryKey: keys.sepa.proposals() }),
    ]);
    return error ? (error.detail ?? error.title) : null;
  };

  const edited = mandates.data.find((m) => m.id === editing && m.active);

  return (
    <>
      <div className="table-scroll">
        <table className="data-table">
          <caption className="visually-hidden">{t('sepa.mandates.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('sepa.mandates.reference')}</th>
              <th scope="col">{t('sepa.mandates.signedOn')}</th>
              <th scope="col">{t('sepa.mandates.debtorName')}</th>
              <th scope="col">{t('sepa.mandates.iban')}</th>
              <th scope="col">{t('sepa.mandates.scheme')}</th>
              <th scope="col">{t('sepa.mandates.sequenceState')}</th>
              <th scope="col">{t('sepa.mandates.state')}</th>
              <th scope="col">{t('sepa.mandates.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {mandates.data.map((mandate) => (
              <tr key={mandate.id}>
                <th scope="row">{mandate.reference}</th>
                <td>{formats.date(mandate.signedOn)}</td>
                <td>{mandate.debtorName}</td>
                <td>{mandate.iban}</td>
                <td>{mandate.scheme}</td>
                <td>
                  {t(`sepa.sequenceStates.${mandate.sequenceState}`)}
                  {mandate.nextSequenceType === null ? null : (
                    <span className="muted"> ({mandate.nextSequenceType})</span>
                  )}
                  {mandate.lastCollectionDate === null ? null : (
                    <>
                      <br />
                      <span className="muted">
                        {t('sepa.mandates.lastCollection', {
                          date: formats.date(mandate.lastCollectionDate),
                        })}
                      </span>
                    </>
                  )}
                </td>
                <td>
                  <MandateState mandate={mandate} />
                </td>
                <td>
                  {mandate.active ? (
                    <button
                      type="button"
                      className="button"
                      aria-label={t('sepa.mandates.editNamed', { reference: mandate.reference })}
                      aria-expanded={editing === mandate.id}
                      onClick={() => setEditing(editing === mandate.id ? null : mandate.id)}
                    >
                      {t('sepa.mandates.edit')}
                    </button>
                  ) : null}
                  {mandate.revokedAt === null ? (
                    <ConfirmDeleteButton
                      labels={{
                        delete: t('sepa.mandates.revoke'),
                        deleteNamed: t('sepa.mandates.revokeNamed', {
                          reference: mandate.reference,
                        }),
                        confirm: t('sepa.mandates.revokeConfirm', { reference: mandate.reference }),
                        cancel: t('sepa.mandates.revokeCancel'),
                      }}
                      onDelete={() => revoke(mandate)}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {edited === undefined ? null : (
        <MandateEditForm
          key={edited.id}
          partnerId={partnerId}
          mandate={edited}
          onClose={() => setEditing(null)}
        />
      )}
    </>
  );
}

interface EditValues {
  reference: string;
  debtorName: string;
  iban: string;
  bic: string;
  scheme: Scheme;
}

const EDIT_FIELDS = ['reference', 'debtorName', 'iban', 'bic', 'scheme'] as const;

const editValues = (mandate: Mandate): EditValues => ({
  reference: mandate.reference,
  debtorName: mandate.debtorName,
  iban: '',
  bic: mandate.bic ?? '',
  scheme: mandate.scheme,
});

/**
 * Changes a mandate: reference, debtor name, IBAN (empty keeps the stored one, which is only
 * answered masked), BIC and scheme. The API decides what is an amendment; a save that meets a
 * newer version offers to reload it and save what was typed here again.
 */
function MandateEditForm({
  partnerId,
  mandate,
  onClose,
}: {
  partnerId: string;
  mandate: Mandate;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const id = useId();
  const queryClient = useQueryClient();
  const [base, setBase] = useState(mandate);
  const { register, handleSubmit, setError, reset, formState } = useForm<EditValues>({
    defaultValues: editValues(mandate),
  });
  const errors = formState.errors;
  const messages = useFormMessages();

  const keepEdits = useKeepEditsOnConflict<Mandate>({
    load: () =>
      api.GET('/v1/sepa/mandates/{mandateId}', { params: { path: { mandateId: mandate.id } } }),
    keep: async (stored) => {
      setBase(stored);
      await handleSubmit((values) => save(values, stored))();
    },
    onProblem: (problem) => messages.setMessage(problem.detail ?? problem.title),
    onUnexpected: () => messages.setMessage(t('common.unexpected')),
  });

  const save = (values: EditValues, read: Mandate) =>
    messages.run(async () => {
      const { data, error } = await api.PUT('/v1/sepa/mandates/{mandateId}', {
        params: { path: { mandateId: mandate.id } },
        body: {
          version: read.version,
          reference: values.reference.trim(),
          debtorName: values.debtorName.trim(),
          ...(values.iban.trim() === '' ? {} : { iban: values.iban.trim() }),
          bic: orNull(values.bic),
          scheme: values.scheme,
        },
      });
      if (error) {
        messages.setMessage(
          keepEdits.noteProblem(error)
            ? t('sepa.mandates.conflict')
            : applyProblem(error, setError, EDIT_FIELDS),
        );
        return;
      }
      keepEdits.noteProblem(null);
      setBase(data);
      reset(editValues(data));
      // The list shows the change; the proposals name the reference and the IBAN.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.sepa.mandates(partnerId) }),
        queryClient.invalidateQueries({ queryKey: keys.sepa.proposals() }),
      ]);
      messages.setSaved(t('sepa.mandates.saved', { reference: data.reference }));
    });

  return (
    <form
      className="form-group"
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={(event) => void handleSubmit((values) => save(values, base))(event)}
    >
      <h3 id={`${id}-title`}>{t('sepa.mandates.editTitle', { reference: mandate.reference })}</h3>
      <FormAlert message={messages.message} />
      {keepEdits.conflict ? (
        <button
          type="button"
          className="button"
          onClick={() => void keepEdits.reloadKeepingEdits()}
        >
          {t('sepa.mandates.reloadKeep')}
        </button>
      ) : null}
      <FormNote message={messages.saved} />
      <Field
        label={t('sepa.mandates.reference')}
        hint={t('sepa.mandates.referenceEditHint')}
        registration={register('reference')}
        error={errors.reference}
      />
      <AccountFields
        labels={{
          name: t('sepa.mandates.debtorName'),
          iban: t('sepa.mandates.newIban'),
          ibanHint: t('sepa.mandates.newIbanHint', { iban: base.iban }),
          bic: t('sepa.mandates.bic'),
        }}
        name={{ registration: register('debtorName'), error: errors.debtorName }}
        iban={{ registration: register('iban'), error: errors.iban }}
        bic={{ registration: register('bic'), error: errors.bic }}
      />
      <SchemeField registration={register('scheme')} error={errors.scheme} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
          {t('sepa.mandates.save')}
        </button>
        <button type="button" className="button" onClick={onClose}>
          {t('sepa.mandates.close')}
        </button>
      </div>
    </form>
  );
}

interface MandateValues {
  reference: string;
  signedOn: string;
  iban: string;
  bic: string;
  debtorName: string;
  sequenceState: SequenceState;
  scheme: Scheme;
}

const MANDATE_FIELDS = [
  'reference',
  'signedOn',
  'iban',
  'bic',
  'debtorName',
  'sequenceState',
  'scheme',
] as const;

function MandateForm({ partnerId, partnerName }: { partnerId: string; partnerName: string }) {
  const { t } = useTranslation();
  const id = useId();
  const queryClient = useQueryClient();
  const empty: MandateValues = {
    reference: '',
    signedOn: '',
    iban: '',
    bic: '',
    debtorName: partnerName,
    sequenceState: 'FIRST',
    scheme: 'CORE',
  };
  const { register, handleSubmit, setError, reset, formState } = useForm<MandateValues>({
    defaultValues: empty,
  });
  const errors = formState.errors;
  const { message, setMessage, saved, setSaved, run } = useFormMessages();

  const submit = handleSubmit((values) =>
    run(async () => {
      const { data, error } = await api.POST('/v1/partners/{partnerId}/mandates', {
        params: { path: { partnerId } },
        body: {
          reference: values.reference.trim(),
          signedOn: values.signedOn,
          iban: values.iban.trim(),
          bic: orNull(values.bic),
          debtorName: values.debtorName.trim(),
          sequenceState: values.sequenceState,
          scheme: values.scheme,
        },
      });
      if (error) {
        setMessage(applyProblem(error, setError, MANDATE_FIELDS));
        return;
      }
      // The partner's mandates, and the collection proposals it may now take part in.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.sepa.mandates(partnerId) }),
        queryClient.invalidateQueries({ queryKey: keys.sepa.proposals() }),
      ]);
      reset(empty);
      setSaved(t('sepa.mandates.created', { reference: data.reference }));
    }),
  );

  return (
    <form
      className="form-group"
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h3 id={`${id}-title`}>{t('sepa.mandates.new')}</h3>
      <FormAlert message={message} />
      <FormNote message={saved} />
      <Field
        label={t('sepa.mandates.reference')}
        hint={t('sepa.mandates.referenceHint')}
        registration={register('reference')}
        error={errors.reference}
      />
      <Field
        label={t('sepa.mandates.signedOn')}
        type="date"
        registration={register('signedOn')}
        error={errors.signedOn}
      />
      <AccountFields
        labels={{
          name: t('sepa.mandates.debtorName'),
          iban: t('sepa.mandates.iban'),
          bic: t('sepa.mandates.bic'),
        }}
        name={{ registration: register('debtorName'), error: errors.debtorName }}
        iban={{ registration: register('iban'), error: errors.iban }}
        bic={{ registration: register('bic'), error: errors.bic }}
      />
      <SchemeField registration={register('scheme')} error={errors.scheme} />
      <SelectField
        label={t('sepa.mandates.sequenceState')}
        hint={t('sepa.mandates.sequenceStateHint')}
        registration={register('sequenceState')}
        error={errors.sequenceState}
      >
        {SEQUENCE_STATES.map((state) => (
          <option key={state} value={state}>
            {t(`sepa.sequenceStates.${state}`)}
          </option>
        ))}
      </SelectField>
      <div>
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
          {t('sepa.mandates.add')}
        </button>
      </div>
    </form>
  );
}

interface BankValues {
  holderName: string;
  iban: string;
  bic: string;
}

const BANK_FIELDS = ['holderName', 'iban', 'bic'] as const;

function BankAccountSection({
  partnerId,
  partnerName,
}: {
  partnerId: string;
  partnerName: string;
}) {
  const { t } = useTranslation();
  const id = useId();
  const queryClient = useQueryClient();
  const account = useQuery({
    queryKey: keys.sepa.bankAccount(partnerId),
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/partners/{partnerId}/bank-account', {
        params: { path: { partnerId } },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });
  const { register, handleSubmit, setError, reset, formState } = useForm<BankValues>({
    defaultValues: { holderName: partnerName, iban: '', bic: '' },
  });
  const errors = formState.errors;
  const { message, setMessage, saved, setSaved, run } = useFormMessages();

  const submit = handleSubmit((values) =>
    run(async () => {
      // The version read now: a bank account set elsewhere meanwhile is replaced knowingly.
      const read = account.data ?? (await account.refetch()).data;
      if (read === undefined) throw new Error('no bank account read');
      const { data, error } = await api.PUT('/v1/partners/{partnerId}/bank-account', {
        params: { path: { partnerId } },
        body: {
          version: read.version,
          holderName: values.holderName.trim(),
          iban: values.iban.trim(),
          bic: orNull(values.bic),
        },
      });
      if (error) {
        if (error.code === 'version_conflict') {
          await queryClient.invalidateQueries({ queryKey: keys.sepa.bankAccount(partnerId) });
        }
        setMessage(applyProblem(error, setError, BANK_FIELDS));
        return;
      }
      queryClient.setQueryData(keys.sepa.bankAccount(partnerId), data);
      // Transfers pay to this account: their proposals change.
      await queryClient.invalidateQueries({ queryKey: keys.sepa.proposals() });
      reset({ holderName: data.holderName ?? '', iban: '', bic: '' });
      setSaved(t('sepa.bankAccount.saved'));
    }),
  );

  return (
    <section className="sepa-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('sepa.bankAccount.title')}</h2>
      <p className="muted">{t('sepa.bankAccount.intro')}</p>
      {account.data === undefined ? (
        <LoadingOrError error={account.error} onRetry={() => void account.refetch()} />
      ) : account.data.iban === null ? (
        <p>{t('sepa.bankAccount.none')}</p>
      ) : (
        <p>
          {t('sepa.bankAccount.current', {
            holder: account.data.holderName ?? '',
            iban: account.data.iban,
          })}
          {account.data.bic === null ? '' : ` · ${account.data.bic}`}
        </p>
      )}
      <form
        className="form-group"
        aria-labelledby={`${id}-form`}
        noValidate
        onSubmit={(event) => void submit(event)}
      >
        <h3 id={`${id}-form`}>
          {account.data?.iban ? t('sepa.bankAccount.change') : t('sepa.bankAccount.set')}
        </h3>
        <FormAlert message={message} />
        <FormNote message={saved} />
        <AccountFields
          labels={{
            name: t('sepa.bankAccount.holderName'),
            iban: t('sepa.bankAccount.iban'),
            bic: t('sepa.bankAccount.bic'),
          }}
          name={{ registration: register('holderName'), error: errors.holderName }}
          iban={{ registration: register('iban'), error: errors.iban }}
          bic={{ registration: register('bic'), error: errors.bic }}
        />
        <div>
          <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
            {t('sepa.bankAccount.save')}
          </button>
        </div>
      </form>
    </section>
  );
}

export function SepaTab({ partnerId, partnerName }: { partnerId: string; partnerName: string }) {
  const { t } = useTranslation();
  return (
    <>
      <section className="sepa-section" aria-labelledby="sepa-mandates-title">
        <h2 id="sepa-mandates-title">{t('sepa.mandates.title')}</h2>
        <MandateList partnerId={partnerId} />
        <MandateForm partnerId={partnerId} partnerName={partnerName} />
      </section>
      <BankAccountSection partnerId={partnerId} partnerName={partnerName} />
    </>
  );
}
