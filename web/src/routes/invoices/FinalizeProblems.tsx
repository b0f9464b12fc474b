import { useRouter } from '@tanstack/react-router';
import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { editorFieldOf, inputIdOf } from './editor-model';

export type FixAt = 'company' | 'bankAccount' | 'partner' | 'document' | 'taxRates' | 'numbering';

export interface FinalizeProblem {
  path: string;
  message: string;
  code: string;
  fixAt?: FixAt;
}

const knownFields = [
  'legalName',
  'street',
  'postalCode',
  'city',
  'country',
  'taxNumber',
  'vatId',
  'bankAccounts',
  'iban',
  'email',
  'phone',
  'electronicAddress',
  'registerNumber',
  'deliveryDate',
  'servicePeriod',
  'partnerId',
  'lineItems',
  'buyerReference',
  'exemptionReason',
  'taxRateId',
  'logo',
] as const;
type KnownField = (typeof knownFields)[number];

/** Where a problem is fixed: the API says so (`fixAt`); a 422 from finalizing names only the path. */
function fixAtOf(problem: FinalizeProblem): FixAt {
  if (problem.fixAt) return problem.fixAt;
  if (problem.path.startsWith('/company/bankAccounts')) return 'bankAccount';
  if (problem.path.startsWith('/company/')) return 'company';
  if (problem.path.startsWith('/partner/')) return 'partner';
  if (problem.path.startsWith('/taxRates/')) return 'taxRates';
  return 'document';
}

function hrefOf(fixAt: FixAt, partnerId: string | null): string | undefined {
  switch (fixAt) {
    case 'company':
    case 'bankAccount':
      return '/settings/company';
    case 'partner':
      return partnerId ? `/partners/${partnerId}` : undefined;
    case 'taxRates':
      return '/settings/tax-rates';
    case 'numbering':
      return '/settings';
    case 'document':
      return undefined;
  }
}

/**
 * What the API says is missing before the invoice may become FINAL (§14 UStG, EN 16931), each
 * a link to where it is fixed: the company settings, the partner, or the editor's own field.
 */
export function FinalizeProblems({
  problems,
  partnerId,
}: {
  problems: FinalizeProblem[];
  partnerId: string | null;
}) {
  const { t } = useTranslation();
  const router = useRouter();

  const label = (problem: FinalizeProblem) => {
    const parts = problem.path.split('/').filter(Boolean);
    const line = parts[0] === 'body' && parts[1] === 'lineItems' ? parts[2] : undefined;
    const name = [...parts]
      .reverse()
      .find((part): part is KnownField => knownFields.includes(part as KnownField));
    const field = name ? t(`invoices.check.fields.${name}`) : (parts.at(-1) ?? problem.path);
    const where =
      line !== undefined && /^\d+$/.test(line)
        ? t('invoices.check.line', { position: Number(line) + 1 })
        : t(`invoices.check.at.${fixAtOf(problem)}`);
    return `${where}: ${field}`;
  };

  const go = (event: MouseEvent<HTMLAnchorElement>, href: string) => {
    event.preventDefault();
    void router.navigate({ href });
  };
  const focusField = (event: MouseEvent<HTMLAnchorElement>, inputId: string) => {
    event.preventDefault();
    document.getElementById(inputId)?.focus();
  };

  return (
    <ul className="finalize-problems">
      {problems.map((problem) => {
        const fixAt = fixAtOf(problem);
        const href = hrefOf(fixAt, partnerId);
        const field = editorFieldOf(problem.path);
        const text = label(problem);
        const detail = t(
          `invoices.check.code.${problem.code === 'invalid' ? 'invalid' : 'required'}`,
        );
        return (
          <li key={`${problem.path}|${problem.message}`}>
            {href !== undefined ? (
              <a href={href} onClick={(event) => go(event, href)}>
                {text}
              </a>
            ) : field !== undefined || fixAt === 'document' ? (
              <a
                href={`#${inputIdOf(field ?? 'lines')}`}
                onClick={(event) => focusField(event, inputIdOf(field ?? 'lines'))}
              >
                {text}
              </a>
            ) : (
              <span>{text}</span>
            )}{' '}
            <span className="muted">
              {detail}
              {/* Why a value is refused is the API's own (English) sentence; "missing" says it all. */}
              {problem.code === 'invalid' ? ` (${problem.message})` : null}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
