import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { compareAndSet, versionConflict, type IfMatch } from '../../shared/concurrency.js';
import { AppError } from '../../shared/errors.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { ibanProblem, maskIban, normalizeIban } from '../../shared/iban.js';
import { deriveKey, seal } from '../../shared/secrets.js';
import type { BankAccount, Billing, Card } from './billing.schemas.js';
import {
  findBilling,
  insertBilling,
  updateBilling,
  type BillingRow,
} from './billing.repository.js';

/** Before anything is set, an account answers NONE at version 1; the first PUT names 1. */
const INITIAL_VERSION = 1;

function present(row: BillingRow | undefined): Billing {
  if (!row) return { billingMethod: 'NONE', card: null, version: INITIAL_VERSION, updatedAt: null };
  const details =
    row.billing_method === 'CARD'
      ? (JSON.parse(row.card ?? 'null') as Billing['card'])
      : row.billing_method === 'BANK_ACCOUNT'
        ? (JSON.parse(row.bank_masked ?? 'null') as Billing['card'])
        : null;
  return {
    billingMethod: row.billing_method as Billing['billingMethod'],
    card: details,
    version: row.version,
    updatedAt: row.updated_at,
  };
}

/**
 * The account's billing method (decisions §13). Cards are references to what the payment
 * provider holds; bank accounts are checked, sealed with AES-256-GCM under a key derived from
 * the app secret, and only a masked form is ever answered or audited.
 */
export class BillingService {
  private readonly key: Buffer;

  constructor(private readonly ctx: AppContext) {
    this.key = deriveKey(ctx.appSecret, 'billing-bank-account');
  }

  async get(accountId: string): Promise<Billing> {
    return present(await findBilling(this.ctx.db, accountId));
  }

  setCard(actor: Actor, card: Card, version: number, ifMatch: IfMatch): Promise<Billing> {
    const stored = { ...card, brand: card.brand ?? null };
    return this.write(
      actor,
      version,
      ifMatch,
      {
        billing_method: 'CARD',
        card: JSON.stringify(stored),
        bank_sealed: null,
        bank_masked: null,
      },
      { method: 'CARD', brand: stored.brand, last4: card.last4 },
    );
  }

  setBankAccount(
    actor: Actor,
    bank: BankAccount,
    version: number,
    ifMatch: IfMatch,
  ): Promise<Billing> {
    const problem = ibanProblem(bank.iban);
    if (problem)
      throw new AppError('validation_failed', `The IBAN ${problem}.`, {
        errors: [{ path: '/body/card/iban', message: problem, code: 'invalid_format' }],
      });
    const iban = normalizeIban(bank.iban);
    const masked = {
      holderName: bank.holderName,
      iban: maskIban(iban),
      bic: bank.bic ?? null,
      mandateReference: bank.mandateReference ?? null,
    };
    return this.write(
      actor,
      version,
      ifMatch,
      {
        billing_method: 'BANK_ACCOUNT',
        card: null,
        bank_sealed: seal(this.key, JSON.stringify({ ...bank, iban })),
        bank_masked: JSON.stringify(masked),
      },
      { method: 'BANK_ACCOUNT', account: masked.iban },
    );
  }

  private async write(
    actor: Actor,
    version: number,
    ifMatch: IfMatch,
    values: Pick<BillingRow, 'billing_method' | 'card' | 'bank_sealed' | 'bank_masked'>,
    auditChanges: Record<string, unknown>,
  ): Promise<Billing> {
    const now = this.ctx.clock.now().toISOString();
    const run = () =>
      this.ctx.db.transaction().execute(async (trx) => {
        const row = await compareAndSet({
          expected: version,
          ifMatch,
          what: 'Billing',
          run: async (v) => {
            if (v === undefined) return undefined;
            const existing = await findBilling(trx, actor.accountId);
            if (!existing) {
              if (v !== INITIAL_VERSION) return undefined;
              const inserted: BillingRow = {
                account_id: actor.accountId,
                ...values,
                version: INITIAL_VERSION + 1,
                created_at: now,
                updated_at: now,
              };
              await insertBilling(trx, inserted);
              return inserted;
            }
            return updateBilling(trx, actor.accountId, v, values, now);
          },
          current: async () =>
            (await findBilling(trx, actor.accountId))?.version ?? INITIAL_VERSION,
        });
        await appendAudit(
          trx,
          actor,
          {
            action: 'billing.method_set',
            resourceType: 'billing',
            resourceId: actor.accountId,
            changes: auditChanges,
          },
          new Date(now),
        );
        return present(row);
      });
    try {
      return await run();
    } catch (err) {
      // Two first PUTs raced on the insert: the loser saw version 1, which is now stale.
      if (isUniqueViolation(err)) throw versionConflict('Billing', INITIAL_VERSION + 1);
      throw err;
    }
  }
}
