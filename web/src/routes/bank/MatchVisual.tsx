/**
 * How a statement line and its suggestion agree, drawn so a glance tells it: a score bar with
 * the mark where finalize starts to use a suggestion, and agreement marks for amount, name and
 * reference. Every drawing is decoration (aria-hidden); the same facts are in text beside it.
 */
import { useTranslation } from 'react-i18next';

/** Finalize uses suggestions scoring this or more (the API's documented threshold). */
export const USE_SCORE = 70;

export function ScoreBar({ score }: { score: number }) {
  const { t } = useTranslation();
  const width = Math.max(0, Math.min(100, score));
  return (
    <span className="score">
      <svg className="score-bar" viewBox="0 0 100 10" width="100" height="10" aria-hidden="true">
        <rect x="0" y="0" width="100" height="10" rx="3" className="score-track" />
        <rect
          x="0"
          y="0"
          width={width}
          height="10"
          rx="3"
          className={score >= USE_SCORE ? 'score-fill score-fill-used' : 'score-fill'}
        />
        <line x1={USE_SCORE} x2={USE_SCORE} y1="0" y2="10" className="score-threshold" />
      </svg>
      <span>{t('bank.review.score', { score })}</span>
    </span>
  );
}

function Mark({ ok }: { ok: boolean }) {
  return (
    <svg
      className={ok ? 'mark mark-ok' : 'mark mark-off'}
      viewBox="0 0 16 16"
      width="16"
      height="16"
      aria-hidden="true"
    >
      <circle cx="8" cy="8" r="7.5" />
      {ok ? <path d="M4.5 8.5l2.2 2.2 4.8-5" /> : <path d="M5 5l6 6M11 5l-6 6" />}
    </svg>
  );
}

export interface Agreement {
  amount: boolean;
  name: boolean;
  reference: boolean;
}

export function AgreementMarks({ agreement }: { agreement: Agreement }) {
  const { t } = useTranslation();
  return (
    <ul className="marks" aria-label={t('bank.review.agreement')}>
      <li>
        <Mark ok={agreement.amount} />
        {agreement.amount ? t('bank.review.amountAgrees') : t('bank.review.amountDiffers')}
      </li>
      <li>
        <Mark ok={agreement.name} />
        {agreement.name ? t('bank.review.nameAgrees') : t('bank.review.nameDiffers')}
      </li>
      <li>
        <Mark ok={agreement.reference} />
        {agreement.reference ? t('bank.review.referenceAgrees') : t('bank.review.referenceDiffers')}
      </li>
    </ul>
  );
}
