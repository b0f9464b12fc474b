import {
  checkAmount,
  checkDate,
  checkId,
  checkParty,
  creationTimestamp,
  formatAmount,
  MAX_NAME,
  remittance,
  requiredText,
  UniqueIds,
  writeAccount,
  writeAgent,
  writeGroupHeader,
  type CheckedParty,
} from './common.js';
import { SepaFileError } from './errors.js';
import { creditorIdProblem, normalizeCreditorId, sepaIbanProblem } from './identifiers.js';
import { normalizeIban } from '../iban.js';
import { SepaXml } from './xml.js';
import type { DirectDebit, DirectDebitBatch, DirectDebitFile, MandateAmendment } from './types.js';

export const PAIN_008_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.008.001.08';

const SEQUENCE_TYPES = new Set(['FRST', 'RCUR', 'FNAL', 'OOFF']);
const LOCAL_INSTRUMENTS = new Set(['CORE', 'B2B']);

interface CheckedAmendment {
  originalMandateId?: string;
  originalCreditorId?: string;
  originalCreditorName?: string;
  originalDebtorIban?: string;
  debtorBankChanged: boolean;
}

interface CheckedDebit {
  source: DirectDebit;
  debtor: CheckedParty;
  amendment?: CheckedAmendment;
  remittance?: string;
}

interface CheckedBatch {
  source: DirectDebitBatch;
  debits: CheckedDebit[];
  sum: bigint;
}

function checkAmendment(a: MandateAmendment, path: string): CheckedAmendment {
  const out: CheckedAmendment = { debtorBankChanged: a.debtorBankChanged === true };
  if (a.originalMandateId !== undefined && a.originalMandateId !== null) {
    checkId(a.originalMandateId, `${path}/originalMandateId`);
    out.originalMandateId = a.originalMandateId;
  }
  if (a.originalCreditorId !== undefined && a.originalCreditorId !== null) {
    const problem = creditorIdProblem(a.originalCreditorId);
    if (problem !== undefined) throw new SepaFileError(`${path}/originalCreditorId`, problem);
    out.originalCreditorId = normalizeCreditorId(a.originalCreditorId);
  }
  if (a.originalCreditorName !== undefined && a.originalCreditorName !== null) {
    if (out.originalCreditorId === undefined)
      throw new SepaFileError(
        `${path}/originalCreditorName`,
        'is only written with originalCreditorId',
      );
    out.originalCreditorName = requiredText(
      a.originalCreditorName,
      MAX_NAME,
      `${path}/originalCreditorName`,
    );
  }
  if (a.originalDebtorIban !== undefined && a.originalDebtorIban !== null) {
    if (out.debtorBankChanged)
      throw new SepaFileError(
        `${path}/originalDebtorIban`,
        'is not written when the debtor changed banks (SMNDA takes its place)',
      );
    const problem = sepaIbanProblem(a.originalDebtorIban);
    if (problem !== undefined) throw new SepaFileError(`${path}/originalDebtorIban`, problem);
    out.originalDebtorIban = normalizeIban(a.originalDebtorIban);
  }
  if (
    out.originalMandateId === undefined &&
    out.originalCreditorId === undefined &&
    out.originalDebtorIban === undefined &&
    !out.debtorBankChanged
  )
    throw new SepaFileError(path, 'must name at least one change');
  return out;
}

function checkFile(file: DirectDebitFile): {
  creditor: CheckedParty;
  creditorId: string;
  batches: CheckedBatch[];
} {
  checkId(file.messageId, '/messageId');
  creationTimestamp(file.createdAt, '/createdAt');
  requiredText(file.initiatingPartyName, MAX_NAME, '/initiatingPartyName');
  const creditor = checkParty(file.creditor, '/creditor');
  const ciProblem = creditorIdProblem(file.creditor.creditorId);
  if (ciProblem !== undefined) throw new SepaFileError('/creditor/creditorId', ciProblem);
  if (file.batches.length === 0)
    throw new SepaFileError('/batches', 'must hold at least one batch');

  const paymentInfoIds = new UniqueIds('payment information id');
  const endToEndIds = new UniqueIds('end-to-end id');
  // FRST and OOFF are the first (or only) collection of a mandate: at most once per file.
  const firstUses = new UniqueIds('mandate (FRST/OOFF)');
  const instrument = file.batches[0]!.localInstrument;
  const batches = file.batches.map((batch, b): CheckedBatch => {
    const path = `/batches/${b}`;
    checkId(batch.paymentInfoId, `${path}/paymentInfoId`);
    paymentInfoIds.add(batch.paymentInfoId, `${path}/paymentInfoId`);
    if (!SEQUENCE_TYPES.has(batch.sequenceType))
      throw new SepaFileError(`${path}/sequenceType`, 'must be FRST, RCUR, FNAL or OOFF');
    if (!LOCAL_INSTRUMENTS.has(batch.localInstrument))
      throw new SepaFileError(`${path}/localInstrument`, 'must be CORE or B2B');
    // German banks take CORE and B2B as different orders (CDD, CDB): one instrument a file.
    if (batch.localInstrument !== instrument)
      throw new SepaFileError(
        `${path}/localInstrument`,
        `must be ${instrument} like the first batch (one instrument per file)`,
      );
    checkDate(batch.collectionDate, `${path}/collectionDate`);
    if (batch.debits.length === 0)
      throw new SepaFileError(`${path}/debits`, 'must hold at least one debit');
    let sum = 0n;
    const debits = batch.debits.map((debit, d): CheckedDebit => {
      const at = `${path}/debits/${d}`;
      checkId(debit.endToEndId, `${at}/endToEndId`);
      endToEndIds.add(debit.endToEndId, `${at}/endToEndId`);
      checkAmount(debit.amountMinor, `${at}/amountMinor`);
      sum += BigInt(debit.amountMinor);
      checkId(debit.mandateId, `${at}/mandateId`);
      if (batch.sequenceType === 'FRST' || batch.sequenceType === 'OOFF')
        firstUses.add(debit.mandateId, `${at}/mandateId`);
      checkDate(debit.mandateSignedOn, `${at}/mandateSignedOn`);
      if (debit.mandateSignedOn > batch.collectionDate)
        throw new SepaFileError(
          `${at}/mandateSignedOn`,
          `must not be after the collection date ${batch.collectionDate}`,
        );
      const checked: CheckedDebit = {
        source: debit,
        debtor: checkParty(debit.debtor, `${at}/debtor`),
        remittance: remittance(debit.remittance),
      };
      if (debit.amendment !== undefined && debit.amendment !== null)
        checked.amendment = checkAmendment(debit.amendment, `${at}/amendment`);
      return checked;
    });
    return { source: batch, debits, sum };
  });
  return { creditor, creditorId: normalizeCreditorId(file.creditor.creditorId), batches };
}

function writeSchemeId(xml: SepaXml, tag: string, creditorId: string, name?: string): void {
  xml.open(tag).leaf('Nm', name).open('Id').open('PrvtId').open('Othr').leaf('Id', creditorId);
  xml.open('SchmeNm').leaf('Prtry', 'SEPA').close('SchmeNm');
  xml.close('Othr').close('PrvtId').close('Id').close(tag);
}

function writeDebit(xml: SepaXml, debit: CheckedDebit): void {
  const { source, debtor, amendment } = debit;
  xml.open('DrctDbtTxInf');
  xml.open('PmtId').leaf('EndToEndId', source.endToEndId).close('PmtId');
  xml.leaf('InstdAmt', formatAmount(source.amountMinor), { Ccy: 'EUR' });
  xml.open('DrctDbtTx').open('MndtRltdInf');
  xml.leaf('MndtId', source.mandateId);
  xml.leaf('DtOfSgntr', source.mandateSignedOn);
  xml.leaf('AmdmntInd', amendment === undefined ? 'false' : 'true');
  if (amendment !== undefined) {
    xml.open('AmdmntInfDtls');
    xml.leaf('OrgnlMndtId', amendment.originalMandateId);
    if (amendment.originalCreditorId !== undefined)
      writeSchemeId(
        xml,
        'OrgnlCdtrSchmeId',
        amendment.originalCreditorId,
        amendment.originalCreditorName,
      );
    if (amendment.debtorBankChanged)
      xml
        .open('OrgnlDbtrAcct')
        .open('Id')
        .open('Othr')
        .leaf('Id', 'SMNDA')
        .close('Othr')
        .close('Id')
        .close('OrgnlDbtrAcct');
    else if (amendment.originalDebtorIban !== undefined)
      writeAccount(xml, 'OrgnlDbtrAcct', amendment.originalDebtorIban);
    xml.close('AmdmntInfDtls');
  }
  xml.close('MndtRltdInf').close('DrctDbtTx');
  writeAgent(xml, 'DbtrAgt', debtor.bic);
  xml.open('Dbtr').leaf('Nm', debtor.name).close('Dbtr');
  writeAccount(xml, 'DbtrAcct', debtor.iban);
  if (debit.remittance !== undefined)
    xml.open('RmtInf').leaf('Ustrd', debit.remittance).close('RmtInf');
  xml.close('DrctDbtTxInf');
}

/**
 * A pain.008.001.08 SEPA direct-debit file (CORE or B2B) as UTF-8 XML text. Every text is
 * transliterated to the EPC basic Latin set and cut to its field's length; input that no
 * valid file can carry (a wrong IBAN, BIC or creditor id, an id breaking the EPC rules, a
 * duplicate id, an amount ≤ 0 or > 999 999 999.99, an empty batch, a mandate signed after
 * its collection date, CORE and B2B in one file) throws a `SepaFileError` naming the input
 * field.
 */
export function buildPain008(file: DirectDebitFile): string {
  const { creditor, creditorId, batches } = checkFile(file);
  const total = batches.reduce((s, b) => s + b.sum, 0n);
  const count = batches.reduce((n, b) => n + b.debits.length, 0);
  const xml = new SepaXml();
  xml.open('Document', { xmlns: PAIN_008_NAMESPACE }).open('CstmrDrctDbtInitn');
  writeGroupHeader(xml, file, count, total);
  for (const batch of batches) {
    const b = batch.source;
    xml.open('PmtInf');
    xml.leaf('PmtInfId', b.paymentInfoId);
    xml.leaf('PmtMtd', 'DD');
    xml.leaf('BtchBookg', b.batchBooking === false ? 'false' : 'true');
    xml.leaf('NbOfTxs', String(batch.debits.length));
    xml.leaf('CtrlSum', formatAmount(batch.sum));
    xml.open('PmtTpInf');
    xml.open('SvcLvl').leaf('Cd', 'SEPA').close('SvcLvl');
    xml.open('LclInstrm').leaf('Cd', b.localInstrument).close('LclInstrm');
    xml.leaf('SeqTp', b.sequenceType);
    xml.close('PmtTpInf');
    xml.leaf('ReqdColltnDt', b.collectionDate);
    xml.open('Cdtr').leaf('Nm', creditor.name).close('Cdtr');
    writeAccount(xml, 'CdtrAcct', creditor.iban);
    writeAgent(xml, 'CdtrAgt', creditor.bic);
    xml.leaf('ChrgBr', 'SLEV');
    writeSchemeId(xml, 'CdtrSchmeId', creditorId);
    for (const debit of batch.debits) writeDebit(xml, debit);
    xml.close('PmtInf');
  }
  xml.close('CstmrDrctDbtInitn').close('Document');
  return xml.toString();
}
