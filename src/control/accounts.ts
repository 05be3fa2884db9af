import { updateWallet, walletView } from '../api/accounts/billing.js';
import { accountView, setAccountStatus, type StatusChange } from '../api/accounts/service.js';
import { ok, route } from '../http/route.js';
import type { ControlRouteFactory } from './dependencies.js';

/** The operations of control.yaml's tag Accounts: the network side of connected accounts, and the wallet. */
export const accountsRoutes: ControlRouteFactory = () => [
  route<{ id: string }, never, StatusChange>('setAccountStatus', ({ workspace, params, body }) => ok(accountView(workspace, setAccountStatus(workspace, params.id, body)))),

  route('getWallet', ({ workspace }) => ok(walletView(workspace))),

  route<never, never, { balanceCents?: number; pricePerAccountCents?: number }>('setWallet', ({ workspace, body }) => ok(updateWallet(workspace, body))),
];
