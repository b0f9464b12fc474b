import { XmlWriter } from '../einvoice/xml-writer.js';
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
  type CheckedParty,
} from './common.js';
import { SepaFileError } from './errors.js';
import { sepaText } from './text.js';
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
  const xml = new XmlWriter();
  xml.group(
    'Document',
    () =>
      xml.group('CstmrCdtTrfInitn', () => {
        xml.group('GrpHdr', () => {
          xml.leaf('MsgId', file.messageId);
          xml.leaf('CreDtTm', creationTimestamp(file.createdAt, '/createdAt'));
          xml.leaf('NbOfTxs', String(count));
          xml.leaf('CtrlSum', formatAmount(total));
          xml.group('InitgPty', () => xml.leaf('Nm', sepaText(file.initiatingPartyName, MAX_NAME)));
        });
        for (const batch of batches) {
          const b = batch.source;
          xml.group('PmtInf', () => {
            xml.leaf('PmtInfId', b.paymentInfoId);
            xml.leaf('PmtMtd', 'TRF');
            xml.leaf('BtchBookg', b.batchBooking === false ? 'false' : 'true');
            xml.leaf('NbOfTxs', String(batch.transfers.length));
            xml.leaf('CtrlSum', formatAmount(batch.sum));
            xml.group('PmtTpInf', () => xml.group('SvcLvl', () => xml.leaf('Cd', 'SEPA')));
            xml.group('ReqdExctnDt', () => xml.leaf('Dt', b.executionDate));
            xml.group('Dbtr', () => xml.leaf('Nm', debtor.name));
            writeAccount(xml, 'DbtrAcct', debtor.iban);
            writeAgent(xml, 'DbtrAgt', debtor.bic);
            xml.leaf('ChrgBr', 'SLEV');
            for (const transfer of batch.transfers) {
              const { source, creditor } = transfer;
              xml.group('CdtTrfTxInf', () => {
                xml.group('PmtId', () => xml.leaf('EndToEndId', source.endToEndId));
                xml.group('Amt', () =>
                  xml.leaf('InstdAmt', formatAmount(source.amountMinor), { Ccy: 'EUR' }),
                );
                if (creditor.bic !== undefined) writeAgent(xml, 'CdtrAgt', creditor.bic);
                xml.group('Cdtr', () => xml.leaf('Nm', creditor.name));
                writeAccount(xml, 'CdtrAcct', creditor.iban);
                if (transfer.remittance !== undefined)
                  xml.group('RmtInf', () => xml.leaf('Ustrd', transfer.remittance));
              });
            }
          });
        }
      }),
    { attrs: { xmlns: PAIN_001_NAMESPACE } },
  );
  return xml.toString();
}
