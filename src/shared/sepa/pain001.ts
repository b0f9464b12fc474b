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
import { SepaXml } from './xml.js';
import type { CreditTransfer, CreditTransferBatch, CreditTransferFile } from './types.js';

export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

interface CheckedTransfer {
  source: CreditTransfer;
  creditor: CheckedParty;
  remittance?: string;
}

interface CheckedBatch {
  source: CreditTransferBatch;
  transfers: CheckedTransfer[];
  sum: bigint;
}

function checkFile(file: CreditTransferFile): { debtor: CheckedParty; batches: CheckedBatch[] } {
  checkId(file.messageId, '/messageId');
  creationTimestamp(file.createdAt, '/createdAt');
  requiredText(file.initiatingPartyName, MAX_NAME, '/initiatingPartyName');
  const debtor = checkParty(file.debtor, '/debtor');
  if (file.batches.length === 0)
    throw new SepaFileError('/batches', 'must hold at least one batch');
  const paymentInfoIds = new UniqueIds('payment information id');
  const endToEndIds = new UniqueIds('end-to-end id');
  const batches = file.batches.map((batch, b): CheckedBatch => {
    const path = `/batches/${b}`;
    checkId(batch.paymentInfoId, `${path}/paymentInfoId`);
    paymentInfoIds.add(batch.paymentInfoId, `${path}/paymentInfoId`);
    checkDate(batch.executionDate, `${path}/executionDate`);
    if (batch.transfers.length === 0)
      throw new SepaFileError(`${path}/transfers`, 'must hold at least one transfer');
    let sum = 0n;
    const transfers = batch.transfers.map((transfer, t): CheckedTransfer => {
      const at = `${path}/transfers/${t}`;
      checkId(transfer.endToEndId, `${at}/endToEndId`);
      endToEndIds.add(transfer.endToEndId, `${at}/endToEndId`);
      checkAmount(transfer.amountMinor, `${at}/amountMinor`);
      sum += BigInt(transfer.amountMinor);
      return {
        source: transfer,
        creditor: checkParty(transfer.creditor, `${at}/creditor`),
        remittance: remittance(transfer.remittance),
      };
    });
    return { source: batch, transfers, sum };
  });
  return { debtor, batches };
}

/**
 * A pain.001.001.09 SEPA credit-transfer file as UTF-8 XML text. Every text is
 * transliterated to the EPC basic Latin set and cut to its field's length; input that no
 * valid file can carry (a wrong IBAN or BIC, an id breaking the EPC rules, a duplicate id, an
 * amount ≤ 0 or > 999 999 999.99, an empty batch) throws a `SepaFileError` naming the input
 * field.
 */
export function buildPain001(file: CreditTransferFile): string {
  const { debtor, batches } = checkFile(file);
  const total = batches.reduce((s, b) => s + b.sum, 0n);
  const count = batches.reduce((n, b) => n + b.transfers.length, 0);
  const xml = new SepaXml();
  xml.open('Document', { xmlns: PAIN_001_NAMESPACE }).open('CstmrCdtTrfInitn');
  writeGroupHeader(xml, file, count, total);
  for (const batch of batches) {
    const b = batch.source;
    xml.open('PmtInf');
    xml.leaf('PmtInfId', b.paymentInfoId);
    xml.leaf('PmtMtd', 'TRF');
    xml.leaf('BtchBookg', b.batchBooking === false ? 'false' : 'true');
    xml.leaf('NbOfTxs', String(batch.transfers.length));
    xml.leaf('CtrlSum', formatAmount(batch.sum));
    xml.open('PmtTpInf').open('SvcLvl').leaf('Cd', 'SEPA').close('SvcLvl').close('PmtTpInf');
    xml.open('ReqdExctnDt').leaf('Dt', b.executionDate).close('ReqdExctnDt');
    xml.open('Dbtr').leaf('Nm', debtor.name).close('Dbtr');
    writeAccount(xml, 'DbtrAcct', debtor.iban);
    writeAgent(xml, 'DbtrAgt', debtor.bic);
    xml.leaf('ChrgBr', 'SLEV');
    for (const transfer of batch.transfers) {
      const { source, creditor } = transfer;
      xml.open('CdtTrfTxInf');
      xml.open('PmtId').leaf('EndToEndId', source.endToEndId).close('PmtId');
      xml
        .open('Amt')
        .leaf('InstdAmt', formatAmount(source.amountMinor), { Ccy: 'EUR' })
        .close('Amt');
      if (creditor.bic !== undefined) writeAgent(xml, 'CdtrAgt', creditor.bic);
      xml.open('Cdtr').leaf('Nm', creditor.name).close('Cdtr');
      writeAccount(xml, 'CdtrAcct', creditor.iban);
      if (transfer.remittance !== undefined)
        xml.open('RmtInf').leaf('Ustrd', transfer.remittance).close('RmtInf');
      xml.close('CdtTrfTxInf');
    }
    xml.close('PmtInf');
  }
  xml.close('CstmrCdtTrfInitn').close('Document');
  return xml.toString();
}
