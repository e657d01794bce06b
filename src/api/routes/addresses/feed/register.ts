/** The per-address list endpoints of spec section 4.1, registered together. */
import type { ApiContext } from '../../../context.ts';
import { activityHeatmapRoute } from '../activity-heatmap.ts';
import { balanceHistoryRoute } from '../balance-history.ts';
import { counterpartiesRoute } from '../counterparties.ts';
import { internalTransactionsRoute } from '../internal-transactions.ts';
import { provenanceRoute } from '../provenance.ts';
import { slavesRoute } from '../slaves.ts';
import { tokenHoldingsRoute } from '../token-holdings.ts';
import { transactionsRoute } from '../transactions.ts';
import type { AppArg } from './common.ts';

export function addressActivityRoutes(app: AppArg, ctx: ApiContext): void {
  transactionsRoute(app, ctx);
  internalTransactionsRoute(app, ctx);
  counterpartiesRoute(app, ctx);
  balanceHistoryRoute(app, ctx);
  activityHeatmapRoute(app, ctx);
  provenanceRoute(app, ctx);
  slavesRoute(app, ctx);
  tokenHoldingsRoute(app, ctx);
}
