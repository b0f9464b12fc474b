/**
 * `/products`: the product and service list (search by name, keyset pages, both in the URL),
 * with a form above it to create or edit one. Price decimals, units and the tax rate are the
 * API's to judge: its refusals show on their fields and what was typed stays.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { components } from '@kontor/client';
import { useAccountSettings } from '../../api/account';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { useTaxRates, type TaxRate } from '../../api/taxRates';
import { FormNote } from '../../components/Form';
import {
  DeleteRecordButton,
  RecordListHeader,
  RecordListStatus,
  useRecordEditing,
} from '../../components/RecordList';
import { formatMoney, taxRateLabel, type NumberFormat } from '../../format';
import { ProductForm, type Editing } from './ProductForm';
import '../../styles/forms.css';
import '../../styles/settings.css';
import '../../styles/tables.css';

type Product = components['schemas']['Product'];
const PAGE_SIZE = 25;

function useProducts(q: string | undefined, cursor: string | undefined) {
  return useQuery({
    queryKey: keys.products.list({ q, cursor }),
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/products', {
        params: {
          query: {
            limit: PAGE_SIZE,
            ...(q === undefined ? {} : { q }),
            ...(cursor === undefined ? {} : { cursor }),
          },
        },
      });
      if (error) throw new ProblemError(error);
      // The route also speaks CSV; without an Accept for it, the answer is the JSON page.
      if (typeof data === 'string') throw new Error('expected a JSON page');
      return data;
    },
  });
}

/** The search box: typing updates the URL after a pause, so every keystroke is no request. */
function SearchBox({ q }: { q: string | undefined }) {
  const { t } = useTranslation();
  const id = useId();
  const navigate = useNavigate({ from: '/products' });
  const [text, setText] = useState(q ?? '');
  useEffect(() => {
    const next = text.trim() === '' ? undefined : text.trim();
    if (next === q) return;
    const timer = setTimeout(
      () => void navigate({ search: next === undefined ? {} : { q: next } }),
      300,
    );
    return () => clearTimeout(timer);
  }, [text, q, navigate]);
  return (
    <div className="list-toolbar" role="search">
      <div className="field">
        <label htmlFor={id}>{t('products.search')}</label>
        <input
          id={id}
          type="search"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
      </div>
    </div>
  );
}

function DeleteProduct({ product, onDone }: { product: Product; onDone: (note: string) => void }) {
  const { t } = useTranslation();
  return (
    <DeleteRecordButton
      labels={{
        delete: t('products.delete'),
        deleteNamed: t('products.deleteNamed', { name: product.name }),
        confirm: t('products.confirmDelete', { name: product.name }),
        cancel: t('products.cancel'),
      }}
      remove={() =>
        api.DELETE('/v1/products/{productId}', { params: { path: { productId: product.id } } })
      }
      invalidate={[keys.products.all]}
      deleted={t('products.deleted', { name: product.name })}
      onDone={onDone}
    />
  );
}

function rateLabel(
  rates: TaxRate[] | undefined,
  id: string | null,
  format: NumberFormat | undefined,
) {
  const rate = rates?.find((candidate) => candidate.id === id);
  return rate === undefined ? '' : taxRateLabel(rate, format);
}

function ProductTable(props: {
  products: Product[];
  rates: TaxRate[] | undefined;
  format: NumberFormat | undefined;
  onEdit: (product: Product) => void;
  onDone: (note: string) => void;
}) {
  const { t } = useTranslation();
  const { products, rates, format } = props;
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption className="visually-hidden">{t('products.tableCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('products.name')}</th>
            <th scope="col">{t('products.type')}</th>
            <th scope="col">{t('products.unit')}</th>
            <th scope="col" className="numeric">
              {t('products.unitPrice')}
            </th>
            <th scope="col">{t('products.taxRate')}</th>
            <th scope="col">{t('products.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {products.map((product) => (
            <tr key={product.id}>
              <th scope="row">{product.name}</th>
              <td>{t(`products.types.${product.type}`)}</td>
              <td>{product.unit ?? ''}</td>
              <td className="numeric">
                {formatMoney(product.unitPrice, product.currency, format)}
              </td>
              <td>{rateLabel(rates, product.taxRateId, format)}</td>
              <td>
                <div className="actions">
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={t('products.editNamed', { name: product.name })}
                    onClick={() => props.onEdit(product)}
                  >
                    {t('products.edit')}
                  </button>
                  <DeleteProduct product={product} onDone={props.onDone} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ProductsPage() {
  const { t } = useTranslation();
  const { q, cursor } = useSearch({ from: '/app/products' });
  const products = useProducts(q, cursor);
  const rates = useTaxRates();
  const account = useAccountSettings();
  const format = account.data?.numberFormat;
  const { editing, note, newButton, open, done } = useRecordEditing<Editing>();
  const page = products.data;
  return (
    <section className="screen" aria-labelledby="screen-title">
      <RecordListHeader
        title={t('products.title')}
        newLabel={t('products.new')}
        newButton={newButton}
        onNew={() => open({ kind: 'new' })}
      />
      {editing ? (
        <ProductForm
          key={editing.kind === 'edit' ? editing.product.id : 'new'}
          editing={editing}
          rates={rates.data ?? []}
          currency={account.data?.currency ?? 'EUR'}
          format={format}
          onDone={done}
        />
      ) : null}
      <SearchBox q={q} />
      <FormNote message={note} />
      <RecordListStatus
        isPending={products.isPending}
        isError={products.isError}
        onRetry={() => void products.refetch()}
      />
      {page && page.data.length === 0 ? (
        <p>{q === undefined ? t('products.empty') : t('products.noMatch', { q })}</p>
      ) : null}
      {page && page.data.length > 0 ? (
        <ProductTable
          products={page.data}
          rates={rates.data}
          format={format}
          onEdit={(product) => open({ kind: 'edit', product })}
          onDone={done}
        />
      ) : null}
      {page && (cursor !== undefined || page.nextCursor !== null) ? (
        <nav className="pager" aria-label={t('products.pages')}>
          {cursor !== undefined ? (
            <Link to="/products" search={q === undefined ? {} : { q }} className="button">
              {t('products.firstPage')}
            </Link>
          ) : null}
          {page.nextCursor !== null ? (
            <Link
              to="/products"
              search={{ ...(q === undefined ? {} : { q }), cursor: page.nextCursor }}
              className="button"
            >
              {t('products.nextPage')}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}
