import type { components as controlComponents } from '../../generated/control.js';
import { ApiError, validationError } from '../../lib/errors.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore, walletStore } from './store.js';

/**
 * What a new connected account costs. The reference only names INSUFFICIENT_WALLET;
 * the mock's model: a `payg` workspace pays each new account from its wallet
 * (50.00 to start, 5.00 per account, both settable at /__control/wallet); a `free`
 * workspace pays nothing but has a fixed number of account slots. Reconnects never
 * bill and use no slot.
 */
export const FREE_PLAN_ACCOUNT_SLOTS = 15;
export const CURRENCY = 'USD';

/** GET /__control/wallet (control.yaml). */
export type WalletView = controlComponents['schemas']['Wallet'];

export function walletView(workspace: Workspace): WalletView {
  const wallet = walletStore.read(workspace);
  return {
    plan: workspace.data.plan,
    currency: CURRENCY,
    balanceCents: wallet.balanceCents,
    pricePerAccountCents: wallet.pricePerAccountCents,
    accountsBilled: wallet.accountsBilled,
    connectedAccounts: Object.keys(accountsStore.read(workspace).accounts).length,
    accountSlots: workspace.data.plan === 'free' ? FREE_PLAN_ACCOUNT_SLOTS : null,
  };
}

export function updateWallet(workspace: Workspace, change: { balanceCents?: number; pricePerAccountCents?: number }): WalletView {
  for (const name of ['balanceCents', 'pricePerAccountCents'] as const) {
    const value = change[name];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) throw validationError(name, `${name} must be a whole number of cents, 0 or more.`);
  }
  const wallet = walletStore.get(workspace);
  if (change.balanceCents !== undefined) wallet.balanceCents = change.balanceCents;
  if (change.pricePerAccountCents !== undefined) wallet.pricePerAccountCents = change.pricePerAccountCents;
  workspace.changed();
  return walletView(workspace);
}

/** Throws 402 when the workspace cannot take one more account; changes nothing. */
export function assertCanAddAccount(workspace: Workspace): void {
  const refusal = addAccountRefusal(workspace);
  if (refusal) throw refusal;
}

/** The 402 a new account would get, or undefined when it can be added (the sign-in page needs the code without throwing). */
export function addAccountRefusal(workspace: Workspace): ApiError | undefined {
  if (workspace.data.plan === 'free') {
    const connected = Object.keys(accountsStore.read(workspace).accounts).length;
    if (connected < FREE_PLAN_ACCOUNT_SLOTS) return undefined;
    return new ApiError(402, 'PLAN_LIMIT_REACHED', `The free plan connects at most ${FREE_PLAN_ACCOUNT_SLOTS} accounts and all are in use; disconnect one, reconnect an existing one, or move to pay as you go.`, {
      details: { plan: 'free', slots: FREE_PLAN_ACCOUNT_SLOTS, connected },
    });
  }
  const wallet = walletStore.read(workspace);
  if (wallet.balanceCents >= wallet.pricePerAccountCents) return undefined;
  return new ApiError(402, 'INSUFFICIENT_WALLET', `The workspace wallet holds ${formatCents(wallet.balanceCents)} and a new account costs ${formatCents(wallet.pricePerAccountCents)}; top it up to connect another account.`, {
    details: { balanceCents: wallet.balanceCents, priceCents: wallet.pricePerAccountCents, currency: CURRENCY },
  });
}

/** Takes the price of one new account from a payg wallet (after assertCanAddAccount passed). */
export function billNewAccount(workspace: Workspace): void {
  if (workspace.data.plan === 'free') return;
  const wallet = walletStore.get(workspace);
  wallet.balanceCents -= wallet.pricePerAccountCents;
  wallet.accountsBilled++;
}

function formatCents(cents: number): string {
  return `${(cents / 100).toFixed(2)} ${CURRENCY}`;
}
