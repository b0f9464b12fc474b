/**
 * Budgets against what was spent this month, per active category, as the stats answer them
 * (`budgets` of `GET /v1/dashboard/stats`; null when the account switched budgets off).
 */
import type { components } from '@kontor/client';
import { useTranslation } from 'react-i18next';
import { useFormats } from '../../api/account';

type Budgets = components['schemas']['DashboardStats']['budgets'];

export function BudgetTable({ budgets }: { budgets: Budgets }) {
  const { t } = useTranslation();
  const formats = useFormats();
  if (budgets === null) return null;
  return (
    <section className="cockpit-section" aria-labelledby="cockpit-budgets">
      <h2 id="cockpit-budgets">{t('cockpit.budgetsTitle')}</h2>
      {budgets.categories.length === 0 ? (
        <p className="muted">{t('cockpit.budgetsEmpty')}</p>
      ) : (
        <table className="data-table">
          <caption className="visually-hidden">
            {t('cockpit.budgetsCaption', { month: formats.month(`${budgets.month}-01`) })}
          </caption>
          <thead>
            <tr>
              <th scope="col">{t('cockpit.budgetCategory')}</th>
              <th scope="col" className="num">
                {t('cockpit.budgetLimit')}
              </th>
              <th scope="col" className="num">
                {t('cockpit.budgetSpent')}
              </th>
              <th scope="col" className="num">
                {t('cockpit.budgetRemaining')}
              </th>
            </tr>
          </thead>
          <tbody>
            {budgets.categories.map((category) => (
              <tr key={category.categoryId}>
                <th scope="row">
                  {category.name}
                  {category.overLimit ? (
                    <span className="badge badge-danger">{t('cockpit.budgetOver')}</span>
                  ) : null}
                </th>
                <td className="num">{formats.money(category.limit, category.currency)}</td>
                <td className="num">{formats.money(category.spent, category.currency)}</td>
                <td className={category.overLimit ? 'num text-danger' : 'num'}>
                  {formats.money(category.remaining, category.currency)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {budgets.truncated ? <p className="muted">{t('cockpit.budgetsTruncated')}</p> : null}
    </section>
  );
}
