/**
 * The conversion chain a document is part of (quote → order confirmation → invoice): the
 * documents it came from, oldest first, itself, and the documents made from it, each a link
 * to its own page. Every step is the API's `originDocumentId` / `convertedToDocumentIds`.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { invoiceQuery, useInvoiceTitle, type Invoice } from './shared';

function DocumentLink({ document }: { document: Invoice }) {
  const title = useInvoiceTitle();
  return document.documentType === 'INVOICE' ? (
    <Link to="/invoices/$documentId" params={{ documentId: document.id }}>
      {title(document)}
    </Link>
  ) : (
    <Link to="/quotes/$documentId" params={{ documentId: document.id }}>
      {title(document)}
    </Link>
  );
}

/** One linked document, read by its id (the cache holds it when it was shown before). */
function Linked({ id, ancestors = false }: { id: string; ancestors?: boolean }) {
  const { t } = useTranslation();
  const linked = useQuery(invoiceQuery(id));
  if (linked.data === undefined)
    return <li>{linked.isError ? linked.error.message : t('app.loading')}</li>;
  const origin = linked.data.originDocumentId;
  return (
    <>
      {ancestors && origin !== null ? <Linked id={origin} ancestors /> : null}
      <li>
        <DocumentLink document={linked.data} />
      </li>
    </>
  );
}

export function DocumentChain({ document }: { document: Invoice }) {
  const { t } = useTranslation();
  const title = useInvoiceTitle();
  if (document.originDocumentId === null && document.convertedToDocumentIds.length === 0)
    return null;
  return (
    <section className="document-chain" aria-labelledby="chain-title">
      <h2 id="chain-title">{t('quotes.chain.title')}</h2>
      <ol>
        {document.originDocumentId !== null ? (
          <Linked id={document.originDocumentId} ancestors />
        ) : null}
        <li aria-current="page">{title(document)}</li>
        {document.convertedToDocumentIds.map((id) => (
          <Linked key={id} id={id} />
        ))}
      </ol>
    </section>
  );
}
