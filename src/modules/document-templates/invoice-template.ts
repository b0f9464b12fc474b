/**
 * The system invoice layout (issue 10): one source for invoices and credit notes, a DIN 5008
 * business letter on A4 that carries everything § 14 (4) UStG asks of an invoice: seller and
 * buyer with full addresses, the seller's tax number or VAT id (footer), number and date,
 * date of supply or service period, quantity, unit and description of every line, the net
 * per VAT rate, the rate and the VAT (or the note why there is none), the gross total, and
 * any Skonto agreed in advance. Every fixed text comes from `invoice.labels`, so the same
 * source writes German or English by the partner's language; every figure goes through the
 * `money`, `number` and `date` filters, so the account's formats apply.
 *
 * The layout places the address field like the letters (sender line, recipient, 85 mm wide,
 * at least 45 mm high) with the information block beside it, and the company data in the
 * footer on every page. It reads `document.lineItems` itself, so the standard line table of
 * the documents module is not appended.
 */

const STYLE = `<style>
  .inv { font-family: Arial, Helvetica, sans-serif; font-size: 10pt; line-height: 1.35; color: #000; }
  .inv .head { display: flex; justify-content: space-between; align-items: flex-start; margin-top: 5mm; }
  .inv .address-field { width: 85mm; min-height: 45mm; }
  .inv .sender-line { font-size: 7pt; border-bottom: 0.5pt solid #000; padding-bottom: 0.5mm; margin-bottom: 3mm; white-space: nowrap; overflow: hidden; }
  .inv .recipient { margin: 0; }
  .inv table.info { width: 76mm; font-size: 8pt; border-collapse: collapse; }
  .inv table.info td { padding: 0 0 0.8mm 0; vertical-align: top; }
  .inv table.info td.k { color: #333; padding-right: 2.5mm; white-space: nowrap; }
  .inv table.info td.v { white-space: nowrap; }
  .inv h1 { font-size: 14pt; margin: 6mm 0 4mm; }
  .inv p { margin: 0 0 2.5mm; }
  .inv table.lines { width: 100%; border-collapse: collapse; font-size: 9pt; margin-top: 3mm; }
  .inv table.lines th { border-bottom: 0.6pt solid #000; font-weight: bold; text-align: left; padding: 1mm 1.5mm; }
  .inv table.lines td { border-bottom: 0.3pt solid #bbb; padding: 1.2mm 1.5mm; vertical-align: top; }
  .inv table.lines th.r, .inv table.lines td.r, .inv table.totals td.r { text-align: right; white-space: nowrap; }
  .inv table.totals { width: 100mm; margin: 4mm 0 0 auto; border-collapse: collapse; font-size: 9.5pt; page-break-inside: avoid; }
  .inv table.totals td { padding: 0.8mm 1.5mm; }
  .inv table.totals tr.sum td { font-weight: bold; border-top: 0.6pt solid #000; }
  .inv .tax-notes { margin-top: 5mm; font-size: 9pt; page-break-inside: avoid; }
  .inv .tax-notes p { margin: 0 0 1mm; }
  .inv .payment { display: flex; justify-content: space-between; align-items: flex-start; margin-top: 5mm; page-break-inside: avoid; }
  .inv .payment .terms { flex: 1 1 auto; font-size: 9.5pt; }
  .inv .giro { flex: 0 0 34mm; margin-left: 6mm; text-align: center; font-size: 7.5pt; line-height: 1.25; }
  .inv .giro img { width: 34mm; height: 34mm; image-rendering: pixelated; }
  .inv .thanks { margin-top: 6mm; }
</style>`;

const ADDRESS_AND_INFO = `<div class="head">
    <div class="address-field">
      <div class="sender-line">{{ company.legalName }}{% if company.address.street %} · {{ company.address.street }}{% endif %}{% if company.address.city %} · {{ company.address.postalCode }} {{ company.address.city }}{% endif %}</div>
      {% if partner %}<p class="recipient">{{ partner.name }}<br />
        {% if partner.address.name %}{{ partner.address.name }}<br />{% endif %}
        {% if partner.address.street %}{{ partner.address.street }}<br />{% endif %}
        {{ partner.address.postalCode }} {{ partner.address.city }}{% if invoice.recipientCountry %}<br />
        {{ invoice.recipientCountry }}{% endif %}</p>{% endif %}
    </div>
    <table class="info">
      {% if document.documentNumber %}<tr><td class="k">{% if invoice.cancellation %}{{ L.cancellationNumber }}{% elsif invoice.creditNote %}{{ L.creditNoteNumber }}{% else %}{{ L.invoiceNumber }}{% endif %}</td><td class="v">{{ document.documentNumber }}</td></tr>{% endif %}
      <tr><td class="k">{% if invoice.creditNote %}{{ L.creditNoteDate }}{% else %}{{ L.invoiceDate }}{% endif %}</td><td class="v">{{ document.creationDate | date }}</td></tr>
      {% if document.servicePeriod %}<tr><td class="k">{{ L.servicePeriod }}</td><td class="v">{{ document.servicePeriod.from | date }} – {{ document.servicePeriod.to | date }}</td></tr>{% endif %}
      {% if document.deliveryDate %}<tr><td class="k">{{ L.deliveryDate }}</td><td class="v">{{ document.deliveryDate | date }}</td></tr>{% endif %}
      {% if invoice.creditNote and document.precedingDocumentNumber %}<tr><td class="k">{{ L.precedingInvoice }}</td><td class="v">{{ document.precedingDocumentNumber }}{% if document.precedingDocumentDate %} {{ L.of }} {{ document.precedingDocumentDate | date }}{% endif %}</td></tr>{% endif %}
      {% if invoice.customerNumber %}<tr><td class="k">{{ L.customerNumber }}</td><td class="v">{{ invoice.customerNumber }}</td></tr>{% endif %}
      {% if document.buyerReference %}<tr><td class="k">{{ L.buyerReference }}</td><td class="v">{{ document.buyerReference }}</td></tr>{% endif %}
      {% if document.orderReference %}<tr><td class="k">{{ L.orderReference }}</td><td class="v">{{ document.orderReference }}</td></tr>{% endif %}
      {% if partner.vatId %}<tr><td class="k">{{ L.buyerVatId }}</td><td class="v">{{ partner.vatId }}</td></tr>{% endif %}
    </table>
  </div>`;

const LINES = `<table class="lines">
    <thead><tr><th class="r">{{ L.position }}</th><th>{{ L.description }}</th><th class="r">{{ L.quantity }}</th><th class="r">{{ L.unitPrice }}</th>{% if invoice.showVat %}<th class="r">{{ L.vatRate }}</th>{% endif %}<th class="r">{{ L.amount }}</th></tr></thead>
    <tbody>
    {% for line in document.lineItems %}<tr>
      <td class="r">{{ forloop.index }}</td>
      <td>{{ line.description | newline_to_br }}</td>
      <td class="r">{{ line.quantity | number }}{% if line.unit != "" %} {{ line.unit }}{% endif %}</td>
      <td class="r">{{ line.unitPrice | money: cur }}</td>
      {% if invoice.showVat %}<td class="r">{{ line.taxRate | number }} %</td>{% endif %}
      <td class="r">{{ line.netAmount | money: cur }}</td>
    </tr>{% endfor %}
    </tbody>
  </table>
  <table class="totals">
    {% if invoice.showVat %}<tr><td>{{ L.netTotal }}</td><td class="r">{{ document.netTotal | money: cur }}</td></tr>
    {% for tax in document.taxes %}<tr><td>{{ L.vat }} {{ tax.rate | number }} %{% if tax.category != "S" %} ({{ L.category[tax.category] | default: tax.category }}){% endif %} {{ L.vatOn }} {{ tax.net | money: cur }}</td><td class="r">{{ tax.tax | money: cur }}</td></tr>{% endfor %}{% endif %}
    <tr class="sum"><td>{{ L.grossTotal }}</td><td class="r">{{ document.grossTotal | money: cur }}</td></tr>
    {% if document.downPaymentDeductions.size > 0 %}<tr><td colspan="2"><strong>{{ L.deductions }}</strong></td></tr>
    {% for d in document.downPaymentDeductions %}<tr class="deduction"><td>{{ L.deductedInvoice }} {{ d.documentNumber }} {{ L.of }} {{ d.creationDate | date }}: {{ L.netTotal }} {{ d.net | money: cur }}{% if invoice.showVat %}{% for t in d.taxes %}, {{ L.vat }} {{ t.rate | number }} % {{ L.vatOn }} {{ t.net | money: cur }}: {{ t.tax | money: cur }}{% endfor %}{% endif %}</td><td class="r">−{{ d.gross | money: cur }}</td></tr>{% endfor %}
    <tr class="sum"><td>{{ L.remaining }}</td><td class="r">{{ document.grossTotal | minus: document.prepaidAmount | money: cur }}</td></tr>{% endif %}
    {% if invoice.paidAmount > 0 %}<tr><td>{{ L.paid }}</td><td class="r">{{ invoice.paidAmount | money: cur }}</td></tr>
    <tr class="sum"><td>{{ L.amountDue }}</td><td class="r">{{ invoice.dueAmount | money: cur }}</td></tr>{% endif %}
  </table>
  {% if invoice.taxNotes.size > 0 %}<div class="tax-notes">{% for text in invoice.taxNotes %}<p>{{ text }}</p>{% endfor %}</div>{% endif %}`;

const PAYMENT = `{% unless invoice.creditNote %}<div class="payment">
    <div class="terms">
      <p><strong>{{ L.paymentTerms }}</strong></p>
      {% if document.paymentTerms %}<p>{{ document.paymentTerms | newline_to_br }}</p>{% endif %}
      {% if invoice.skonto %}<p>{{ L.skontoIf }} {{ invoice.skonto.until | date }}: {{ invoice.skonto.percent | number }} % {{ L.skonto }} ({{ invoice.skonto.amount | money: cur }}), {{ L.skontoPayable }} {{ invoice.skonto.payable | money: cur }}.</p>{% endif %}
      {% if invoice.directDebit %}<p class="direct-debit">{{ L.directDebitAmount }} {{ invoice.directDebit.amount | money: cur }} {{ L.directDebitOn }} {{ invoice.directDebit.collectionDate | date }} {{ L.directDebitMandate }} {{ invoice.directDebit.mandateReference }} ({{ L.directDebitCreditorId }} {{ invoice.directDebit.creditorId }}){{ L.directDebitEnd }}</p>{% elsif document.dueDate %}<p>{{ L.payableBy }} {{ document.dueDate | date }}.</p>{% endif %}
      {% if bank %}<p>{{ L.bank }}: {% if bank.bankName %}{{ bank.bankName }}, {% endif %}{{ L.iban }} {{ bank.ibanGrouped }}{% if bank.bic %}, {{ L.bic }} {{ bank.bic }}{% endif %}</p>{% endif %}
    </div>
    {% if invoice.giroCode %}<div class="giro"><img src="{{ invoice.giroCode }}" alt="GiroCode" /><br />{{ L.payGiroCode }}</div>{% endif %}
  </div>
  <p class="thanks">{{ L.thanks }}</p>{% endunless %}`;

/** The body of the invoice layout (invoices and credit notes). */
export const INVOICE_CONTENT = `${STYLE}
{% assign L = invoice.labels %}{% assign cur = document.currency %}{% assign bank = company.bankAccounts.first %}
<div class="inv">
  ${ADDRESS_AND_INFO}
  <h1>{{ invoice.title }}{% if document.documentNumber %} {{ document.documentNumber }}{% endif %}</h1>
  {% if document.originDocumentNumber %}{% if document.invoiceType == "DOWN_PAYMENT" or document.prepaidAmount != nil %}<p>{{ L.forOrder }} {{ document.originDocumentNumber }}</p>{% endif %}{% endif %}
  {% if invoice.creditNote and document.precedingDocumentNumber %}<p>{% if invoice.cancellation %}{{ L.cancels }}{% else %}{{ L.refersTo }}{% endif %} {{ document.precedingDocumentNumber }}{% if document.precedingDocumentDate %} {{ L.of }} {{ document.precedingDocumentDate | date }}{% endif %}.</p>{% endif %}
  {% if document.note %}<p>{{ document.note | newline_to_br }}</p>{% endif %}
  ${LINES}
  ${PAYMENT}
</div>`;

const CELL = 'vertical-align: top; padding: 1.5mm 2mm 0 0;';

/**
 * The footer on every page: the company data a business letter and an invoice must show. Its
 * width is the text width (165 mm), not 100 %: the footer zone is as wide as the page.
 */
export const INVOICE_FOOTER = `{% assign L = invoice.labels %}{% assign bank = company.bankAccounts.first %}<table style="width: 165mm; table-layout: fixed; border-collapse: collapse; border-top: 0.5pt solid #999; font-family: Arial, Helvetica, sans-serif; font-size: 6.5pt; line-height: 1.3; color: #333;"><tr>
  <td style="${CELL} width: 20%;">{{ company.legalName }}{% if company.address.street %}<br />{{ company.address.street }}{% endif %}{% if company.address.city %}<br />{{ company.address.postalCode }} {{ company.address.city }}{% endif %}</td>
  <td style="${CELL} width: 27%;">{% if company.phone %}{{ L.phone }} {{ company.phone }}<br />{% endif %}{% if company.email %}<span style="white-space: nowrap;">{{ L.email }} {{ company.email }}</span><br />{% endif %}{% if company.website %}{{ L.website }} {{ company.website }}{% endif %}</td>
  <td style="${CELL} width: 28%;">{% if company.managingDirectors.size > 0 %}{{ L.managingDirectors }}: {{ company.managingDirectors | join: ", " }}<br />{% endif %}{% if company.registerCourt or company.registerNumber %}{{ L.registerCourt }}: {{ company.registerCourt }} {{ company.registerNumber }}<br />{% endif %}{% if company.vatId %}{{ L.vatId }} {{ company.vatId }}<br />{% endif %}{% if company.taxNumber %}{{ L.taxNumber }} {{ company.taxNumber }}{% endif %}</td>
  <td style="${CELL} width: 25%;">{% if bank %}{% if bank.bankName %}{{ bank.bankName }}<br />{% endif %}<span style="white-space: nowrap;">{{ L.iban }} {{ bank.ibanGrouped }}</span>{% if bank.bic %}<br />{{ L.bic }} {{ bank.bic }}{% endif %}{% if bank.accountHolder and bank.accountHolder != company.legalName %}<br />{{ L.accountHolder }}: {{ bank.accountHolder }}{% endif %}{% endif %}</td>
</tr></table>`;

/** The information block of a quote or an order confirmation: number, date, validity, refs. */
const salesInfo = (kind: 'quote' | 'orderConfirmation') => `<div class="head">
    <div class="address-field">
      <div class="sender-line">{{ company.legalName }}{% if company.address.street %} · {{ company.address.street }}{% endif %}{% if company.address.city %} · {{ company.address.postalCode }} {{ company.address.city }}{% endif %}</div>
      {% if partner %}<p class="recipient">{{ partner.name }}<br />
        {% if partner.address.name %}{{ partner.address.name }}<br />{% endif %}
        {% if partner.address.street %}{{ partner.address.street }}<br />{% endif %}
        {{ partner.address.postalCode }} {{ partner.address.city }}{% if invoice.recipientCountry %}<br />
        {{ invoice.recipientCountry }}{% endif %}</p>{% endif %}
    </div>
    <table class="info">
      {% if document.documentNumber %}<tr><td class="k">{{ L.${kind}Number }}</td><td class="v">{{ document.documentNumber }}</td></tr>{% endif %}
      <tr><td class="k">{{ L.${kind}Date }}</td><td class="v">{{ document.creationDate | date }}</td></tr>
      {% if document.validUntil %}<tr><td class="k">{{ L.validUntil }}</td><td class="v">{{ document.validUntil | date }}</td></tr>{% endif %}
      {% if document.originDocumentNumber %}<tr><td class="k">{{ L.quoteNumber }}</td><td class="v">{{ document.originDocumentNumber }}</td></tr>{% endif %}
      {% if document.deliveryDate %}<tr><td class="k">{{ L.deliveryDate }}</td><td class="v">{{ document.deliveryDate | date }}</td></tr>{% endif %}
      {% if invoice.customerNumber %}<tr><td class="k">{{ L.customerNumber }}</td><td class="v">{{ invoice.customerNumber }}</td></tr>{% endif %}
      {% if document.orderReference %}<tr><td class="k">{{ L.orderReference }}</td><td class="v">{{ document.orderReference }}</td></tr>{% endif %}
      {% if partner.vatId %}<tr><td class="k">{{ L.buyerVatId }}</td><td class="v">{{ partner.vatId }}</td></tr>{% endif %}
    </table>
  </div>`;

/**
 * The quote layout (`QUOTE`, "Angebot"/"Quote"): the invoice's DIN 5008 letter with its lines,
 * VAT per rate and totals, titled as a quote, with its validity (gültig bis) in the information
 * block and below the totals, the payment terms when given, and no bank or GiroCode block.
 */
export const QUOTE_CONTENT = `${STYLE}
{% assign L = invoice.labels %}{% assign cur = document.currency %}
<div class="inv">
  ${salesInfo('quote')}
  <h1>{{ L.quote }}{% if document.documentNumber %} {{ document.documentNumber }}{% endif %}</h1>
  {% if document.note %}<p>{{ document.note | newline_to_br }}</p>{% endif %}
  ${LINES}
  <div class="payment"><div class="terms">
    {% if document.validUntil %}<p>{{ L.quoteValidity }} {{ document.validUntil | date }}.</p>{% endif %}
    {% if document.paymentTerms %}<p><strong>{{ L.paymentTerms }}</strong></p><p>{{ document.paymentTerms | newline_to_br }}</p>{% endif %}
  </div></div>
  <p class="thanks">{{ L.quoteThanks }}</p>
</div>`;

/**
 * The order confirmation layout (`ORDER_CONFIRMATION`, "Auftragsbestätigung"/"Order
 * confirmation"): as the quote, naming the quote it confirms when it was converted from one.
 */
export const ORDER_CONFIRMATION_CONTENT = `${STYLE}
{% assign L = invoice.labels %}{% assign cur = document.currency %}
<div class="inv">
  ${salesInfo('orderConfirmation')}
  <h1>{{ L.orderConfirmation }}{% if document.documentNumber %} {{ document.documentNumber }}{% endif %}</h1>
  <p>{{ L.orderConfirmationIntro }}{% if document.originDocumentNumber %} {{ L.toQuote }} {{ document.originDocumentNumber }}{% endif %}.</p>
  {% if document.note %}<p>{{ document.note | newline_to_br }}</p>{% endif %}
  ${LINES}
  {% if document.paymentTerms %}<div class="payment"><div class="terms"><p><strong>{{ L.paymentTerms }}</strong></p><p>{{ document.paymentTerms | newline_to_br }}</p></div></div>{% endif %}
  <p class="thanks">{{ L.orderConfirmationThanks }}</p>
</div>`;
